// Where `clawfleet secrets --aws` reads and writes: AWS Secrets Manager, under the same secret
// names as the local file (its own module, so the SDK loads only for --aws).
import { SecretsManagerSecrets } from '../shared/adapters/aws/secrets-manager-secrets.ts';
import { parseSecretObject } from '../shared/secrets/secret-values.ts';
import type { AwsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, EXIT } from './command.ts';
import type { SecretTarget } from './secret-targets.ts';

export function awsSecretTarget(aws: AwsSettings): SecretTarget {
  const sm = SecretsManagerSecrets.for(aws);
  return {
    where: `AWS Secrets Manager (${aws.region})`,
    async read(secretId) {
      try {
        return parseSecretObject(secretId, await sm.text(secretId));
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return {};
        throw new CliError(EXIT.failed, awsErrorText(`cannot read secret ${secretId}`, err, aws));
      }
    },
    async write(secretId, values) {
      const SecretString = JSON.stringify(values);
      try {
        await sm.put(secretId, SecretString);
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw new CliError(EXIT.failed, awsErrorText(`cannot write secret ${secretId}`, err, aws));
        try {
          await sm.create(secretId, SecretString);
        } catch (createErr) {
          throw new CliError(EXIT.failed, awsErrorText(`cannot create secret ${secretId}`, createErr, aws));
        }
      }
    },
  };
}
