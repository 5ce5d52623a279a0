// The runtime's queues and secrets on AWS: this agent's own SQS queues and its own Secrets
// Manager secret, read (and read again while a value is missing). Imported only for an AWS transport, so a local runtime never loads the SDK.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerStore } from '../../../shared/adapters/aws/secrets-manager-store.ts';
import { SignedS3MediaStore } from '../../../shared/adapters/aws/signed-s3-media-store.ts';
import { getS3Object } from '../../../shared/adapters/aws/signed-s3-object.ts';
import { FLEET_SKILLS_BUNDLE_MAX_BYTES } from '../../../shared/config/fleet-skills-bundle.ts';
import { SqsDeadLetters, SqsInbox, SqsOutbox } from '../../../shared/adapters/aws/sqs-queues.ts';
import { dynamoDocumentClient } from '../../../shared/adapters/aws/clients.ts';
import { DynamoSpendLedger } from '../../../shared/adapters/aws/dynamo-spend.ts';
import type { RuntimeConnection } from './connection.ts';
import type { RuntimeEnv, Transport } from '../env.ts';
import { checkOwnSecretId } from '../secrets/own-secret.ts';

export async function connectAws(env: RuntimeEnv, t: Extract<Transport, { kind: 'aws' }>): Promise<RuntimeConnection> {
  // Checked before the read: this runtime asks for its own secret and no other.
  checkOwnSecretId(env.config, env.secretId);
  const sqs = new SQSClient({ maxAttempts: 3 });
  const store = new SecretsManagerStore(new SecretsManagerClient({ maxAttempts: 3 }));
  // The first read starts now, while the rest of the runtime loads; later reads (a value still
  // missing, secret-wait.ts) go to Secrets Manager again.
  let first: Promise<Record<string, string>> | undefined = store.get(env.secretId);
  first.catch(() => {}); // a failure is reported where it is awaited
  return {
    inbox: new SqsInbox(sqs, t.inboxUrl, env.visibilitySeconds),
    outbox: new SqsOutbox(sqs, t.outboxUrl),
    deadLetters: new SqsDeadLetters(sqs, async () => t.dlqUrl),
    secrets: {},
    // media (#16): this agent's files in the fleet's bucket; its task role reaches only its own prefixes.
    ...(env.mediaBucket ? { media: new SignedS3MediaStore({ bucket: env.mediaBucket, fleet: env.config.fleet }) } : {}),
    // Budgets (#31): its own ledger items of the spend table; its task role may touch no other.
    ...(env.spendTable ? { spendLedger: new DynamoSpendLedger(dynamoDocumentClient(), env.spendTable) } : {}),
    // Fleet skills (#19): the one object of the deployment's assets its task role may read.
    ...(env.fleetSkillsObject
      ? { fleetSkillsBundle: () => getS3Object(env.fleetSkillsObject!.bucket, env.fleetSkillsObject!.key, FLEET_SKILLS_BUNDLE_MAX_BYTES) }
      : {}),
    readSecrets: () => {
      const read = first ?? store.get(env.secretId);
      first = undefined;
      return read;
    },
  };
}
