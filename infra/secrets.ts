// Filling the secrets the stacks create without values. Values come from the caller
// (the set-secret script reads them from stdin), go straight to PutSecretValue, and are
// never logged, echoed or put in an error: results and errors name keys only.
import { GetSecretValueCommand, PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { agentSecretName, dashboardSecretName, hooksSecretName, telegramSecretName } from '../shared/config/names.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { issuesText, parseJsonAs } from '../shared/json.ts';
import { SecretValuesSchema } from '../shared/secrets/secret-values.ts';

/** `telegram` (its first secret: telegram-secrets.ts says which holds a token beyond 400 bots), `hooks`, `dashboard`, `agent:<id>` or a full secret name. */
export function secretIdFor(fleet: string, target: string): string {
  if (target === 'telegram') return telegramSecretName(fleet);
  if (target === 'hooks') return hooksSecretName(fleet);
  if (target === 'dashboard') return dashboardSecretName(fleet);
  if (target.startsWith('agent:')) return agentSecretName(fleet, target.slice('agent:'.length));
  if (target.startsWith(`clawfleet/${fleet}/`)) return target;
  throw new ClawfleetError('SECRET_TARGET_UNKNOWN', `"${target}" is not telegram, hooks, dashboard, agent:<id> or a clawfleet/${fleet}/... secret name`);
}

/** Parses a JSON object of named string values; the error never quotes the input. */
export function parseSecretValues(text: string): Record<string, string> {
  const parsed = parseJsonAs(SecretValuesSchema, text);
  if (parsed.ok) return parsed.value;
  if (parsed.notJson) throw new ClawfleetError('SECRET_VALUES_INVALID', 'stdin is not a JSON object (expected {"NAME": "value", ...})');
  throw new ClawfleetError('SECRET_VALUES_INVALID', `stdin is not an object of named string values: ${issuesText(parsed.issues)}`);
}

export interface PutSecretResult {
  secretId: string;
  /** The names the secret holds afterwards. */
  names: string[];
}

/**
 * Puts named values into a secret. With `merge` (the default) they are added to the
 * values already there; otherwise they replace the whole secret.
 */
export async function putSecretValues(
  client: SecretsManagerClient,
  secretId: string,
  values: Record<string, string>,
  opts: { merge?: boolean } = {},
): Promise<PutSecretResult> {
  const checked = SecretValuesSchema.parse(values);
  let current: Record<string, string> = {};
  if (opts.merge ?? true) current = await readCurrent(client, secretId);
  const next = { ...current, ...checked };
  try {
    await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(next) }));
  } catch (err) {
    throw new ClawfleetError('SECRET_PUT_FAILED', `cannot put a value into "${secretId}": ${(err as Error).name}`, { cause: err });
  }
  return { secretId, names: Object.keys(next).sort() };
}

async function readCurrent(client: SecretsManagerClient, secretId: string): Promise<Record<string, string>> {
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString ? parseSecretValues(SecretString) : {};
  } catch (err) {
    // A secret created without a value has no AWSCURRENT version yet.
    if ((err as Error).name === 'ResourceNotFoundException' && /version|AWSCURRENT/i.test((err as Error).message)) return {};
    if (err instanceof ClawfleetError)
      throw new ClawfleetError('SECRET_VALUES_INVALID', `"${secretId}" holds something other than named values; use --replace`);
    throw new ClawfleetError('SECRET_UNREADABLE', `cannot read "${secretId}" to merge into it: ${(err as Error).name}`, { cause: err });
  }
}
