// The shape of every clawfleet secret, wherever it is stored (Secrets Manager, the local
// secrets file, the pipe to a local runtime): a JSON object of named string values, each
// name as the config spells it. Errors name the secret and never quote a value.
import * as z from '../zod.ts';
import { ClawfleetError } from '../errors.ts';
import { parseJsonAs } from '../json.ts';

/** A secret value's name: what config keys like `apiKeySecret` and `agents.list[].secrets` hold. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const SecretNameSchema = z.string().check(z.regex(SECRET_NAME, 'must be a secret name like GRAPH_TOKEN (letters, digits, "_")'));

/** Named string values, as read: the names are whatever the store holds. */
export const SecretObjectSchema = z.record(z.string(), z.string());
/** Named string values, as written: every name a secret name. */
export const SecretValuesSchema = z.record(SecretNameSchema, z.string());

/** A stored secret's text (none or empty: a secret created without values) as its values. */
export function parseSecretObject(secretId: string, text: string | undefined): Record<string, string> {
  if (text === undefined || text === '') return {};
  const parsed = parseJsonAs(SecretObjectSchema, text);
  if (parsed.ok) return parsed.value;
  throw new ClawfleetError(
    'SECRET_MALFORMED',
    parsed.notJson ? `secret "${secretId}" is not a JSON object of named values` : `secret "${secretId}" must be a JSON object whose values are strings`,
  );
}

/** A secrets file (local mode's, `clawfleet secrets`'): secrets by name, each read on its own with secretInFile. */
export type SecretsFile = Record<string, unknown>;

/** A secrets file's text as secrets by name, or what is wrong with it (never a value): its readers word the error. */
export function parseSecretsFile(path: string, text: string): { ok: true; secrets: SecretsFile } | { ok: false; notJson: boolean; problem: string } {
  const parsed = parseJsonAs(z.record(z.string(), z.unknown()), text);
  if (parsed.ok) return { ok: true, secrets: parsed.value };
  return { ok: false, notJson: parsed.notJson, problem: parsed.notJson ? `${path} is not JSON` : `${path} must be an object of secrets by name` };
}

/** One secret of a secrets file as its values (absent: none yet, as a freshly created secret). */
export function secretInFile(path: string, secrets: SecretsFile, secretId: string): Record<string, string> {
  const value = secrets[secretId];
  if (value === undefined) return {};
  const values = SecretObjectSchema.safeParse(value);
  if (!values.success) throw new ClawfleetError('SECRET_MALFORMED', `secret "${path}: ${secretId}" must be a JSON object whose values are strings`);
  return values.data;
}
