// Filling the secrets the stacks create without values. Values come from the caller
// (the set-secret script and clawfleet deploy), go straight to PutSecretValue, and are
// never logged, echoed or put in an error: results and errors name keys only.
import { GetSecretValueCommand, PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ClawfleetError } from '../../errors.ts';
import { SecretValuesSchema } from '../../secrets/secret-values.ts';
import { parseSecretValues } from '../../secrets/secret-target.ts';

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
