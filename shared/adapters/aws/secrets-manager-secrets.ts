// A secret's stored text in Secrets Manager as the CLI reads and writes it (`clawfleet secrets
// --aws`, the deploy's checks): its value, whether it exists, a put, a create, a merge of named
// values. The SDK's errors reach the caller as they are (ResourceNotFoundException among them),
// for it to say what it was doing; no value is ever put in one.
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { type AwsClientConfig, secretsManagerClient } from './clients.ts';
import { putSecretValues, type PutSecretResult } from './secrets-manager-writer.ts';

export class SecretsManagerSecrets {
  constructor(private readonly client: SecretsManagerClient) {}

  static for(config: AwsClientConfig): SecretsManagerSecrets {
    return new SecretsManagerSecrets(secretsManagerClient(config));
  }

  /** The secret's current text; ResourceNotFoundException when there is no secret or it has no value yet. */
  async text(secretId: string): Promise<string | undefined> {
    return (await this.client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  }

  /** Resolves when the secret exists (with or without a value); ResourceNotFoundException when it does not. */
  async describe(secretId: string): Promise<void> {
    await this.client.send(new DescribeSecretCommand({ SecretId: secretId }));
  }

  async put(secretId: string, text: string): Promise<void> {
    await this.client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: text }));
  }

  async create(secretId: string, text: string): Promise<void> {
    await this.client.send(new CreateSecretCommand({ Name: secretId, SecretString: text }));
  }

  /** Merges named values into the secret (secrets-manager-writer.ts). */
  putValues(secretId: string, values: Record<string, string>): Promise<PutSecretResult> {
    return putSecretValues(this.client, secretId, values, { merge: true });
  }
}
