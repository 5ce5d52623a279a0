// Reads JSON secrets from Secrets Manager. A secret is an object of named string values;
// errors name the secret, never a value.
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ClawfleetError } from '../../errors.ts';
import type { SecretStore } from '../../ports.ts';
import { parseSecretObject } from '../../secrets/secret-values.ts';

export class SecretsManagerStore implements SecretStore {
  constructor(private readonly client: SecretsManagerClient) {}

  async get(secretId: string): Promise<Record<string, string>> {
    let text: string | undefined;
    try {
      text = (await this.client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
    } catch (err) {
      const name = (err as Error).name;
      throw new ClawfleetError(name === 'ResourceNotFoundException' ? 'SECRET_NOT_FOUND' : 'SECRET_UNREADABLE', `cannot read secret "${secretId}": ${name}`, {
        cause: err,
      });
    }
    return parseSecretObject(secretId, text);
  }
}
