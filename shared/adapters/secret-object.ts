// The shape every clawfleet secret has, wherever it is stored: a JSON object of named strings.
import { ClawfleetError } from '../errors.ts';

export function parseSecretObject(secretId: string, text: string | undefined): Record<string, string> {
  if (text === undefined || text === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ClawfleetError('SECRET_MALFORMED', `secret "${secretId}" is not a JSON object of named values`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || Object.values(json).some((v) => typeof v !== 'string')) {
    throw new ClawfleetError('SECRET_MALFORMED', `secret "${secretId}" must be a JSON object whose values are strings`);
  }
  return json as Record<string, string>;
}
