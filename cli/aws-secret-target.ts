// Where `clawfleet secrets --aws` reads and writes: AWS Secrets Manager, under the same secret
// names as the local file (its own module, so the SDK loads only for --aws).
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseSecretObject } from '../shared/secrets/secret-values.ts';
import type { AwsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, EXIT } from './command.ts';
import type { SecretTarget } from './secret-targets.ts';

export function awsSecretTarget(aws: AwsSettings): SecretTarget {
  const sm = new SecretsManagerClient(aws);
  return {
    where: `AWS Secrets Manager (${aws.region})`,
    async read(secretId) {
      try {
        const out = await sm.send(new GetSecretValueCommand({ SecretId: secretId }));
        return parseSecretObject(secretId, out.SecretString);
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return {};
        throw new CliError(EXIT.failed, awsErrorText(`cannot read secret ${secretId}`, err, aws));
      }
    },
    async write(secretId, values) {
      const SecretString = JSON.stringify(values);
      try {
        await sm.send(new PutSecretValueCommand({ SecretId: secretId, SecretString }));
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw new CliError(EXIT.failed, awsErrorText(`cannot write secret ${secretId}`, err, aws));
        try {
          await sm.send(new CreateSecretCommand({ Name: secretId, SecretString }));
        } catch (createErr) {
          throw new CliError(EXIT.failed, awsErrorText(`cannot create secret ${secretId}`, createErr, aws));
        }
      }
    },
  };
}
