// The image fleet deployed to the emulator with cdklocal, as `cdk deploy` would deploy it
// with `-c runtimeImage=<the built image>` (the emulator has no Docker image assets), for the
// image tests to run its agents' tasks as the deployed task definitions say. Each caller
// deploys into its own emulator account, from a temp directory outside the repository.
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tempDir } from './temp-dirs.ts';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeAccessPointsCommand, EFSClient } from '@aws-sdk/client-efs';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { putSecretValues } from '../../shared/adapters/aws/secrets-manager-writer.ts';
import { secretIdFor } from '../../shared/secrets/secret-target.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentStackName, controlPlaneStackName } from '../../shared/config/names.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import type { FleetConfig, FleetConfigInput } from '../../shared/config/schema.ts';
import type { AwsTestEnv } from './aws.ts';
import { cdklocal } from './cdklocal.ts';
import { signedPost } from './aws-query.ts';
import { type AccessPoint, parseTaskDefinition, type TaskDefinition } from './ecs-task-definition.ts';

const REPO = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));

export interface DeployedFleet {
  config: FleetConfig;
  workDir: string;
  outputs: Record<string, Record<string, string>>;
  /** The deploy's figures: bootstrap and deploy seconds. */
  seconds: { bootstrap: number; deploy: number };
  output(stack: string, key: string): string;
  /** The emulator's URL for a Function URL output. */
  functionUrl(stack: string, key: string): string;
  /** POSTs a Telegram update for `agentId`'s bot to the deployed webhook's Function URL, as Telegram would. */
  postUpdate(agentId: string, botToken: string, update: unknown): Promise<Response>;
  /** The agent's runtime task definition as the emulator holds it, parsed strictly. */
  taskDefinition(agentId: string): Promise<TaskDefinition>;
  /** The access point a task definition's volume mounts through. */
  accessPoint(id: string): Promise<AccessPoint>;
  /** Messages waiting, in flight or delayed in the agent's inbox and outbox (0 once nothing more can be sent). */
  pending(agentId: string): Promise<number>;
  remove(): void;
}

/**
 * One ECS API call, signed, its answer as the emulator wrote it. The SDK client is not used for
 * DescribeTaskDefinition: MiniStack 1.5.33 answers nested fields of a CloudFormation-made task
 * definition in the template's PascalCase (volumes, healthCheck's command, linuxParameters),
 * which the SDK's deserializer drops without a word; parseTaskDefinition reads either spelling.
 */
export async function ecsJson(aws: AwsTestEnv, action: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await signedPost(
    aws,
    'ecs',
    { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AmazonEC2ContainerServiceV20141113.${action}` },
    JSON.stringify(body),
  );
  if (!res.ok) throw new Error(`ECS ${action}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

/**
 * Deploys `input` with every agent's runtime image set to `runtimeImage`, then puts the
 * secrets' values in (per target: 'telegram', 'agent:<id>', …), as docs/deploy.md says.
 */
export async function deployImageFleet(
  aws: AwsTestEnv,
  input: FleetConfigInput,
  runtimeImage: string,
  secrets: Record<string, Record<string, string>>,
  /** As `clawfleet deploy` creates them (context newAgents): each service starts at desired count 0, λ compute's to raise. */
  opts: { newAgents?: boolean } = {},
): Promise<DeployedFleet> {
  const workDir = tempDir('cf-image-deploy-');
  if (!relative(REPO, realpathSync(workDir)).startsWith('..')) throw new Error(`the temp dir ${workDir} lies inside the repository; set TMPDIR elsewhere`);
  try {
    mkdirSync(join(workDir, 'tmp'));
    const config = parseConfig(input);
    const configFile = join(workDir, 'clawfleet.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const t0 = performance.now();
    await cdklocal(aws, workDir, ['bootstrap', `aws://${aws.accountId}/${aws.region}`], workDir);
    const t1 = performance.now();
    const outputsFile = join(workDir, 'outputs.json');
    const context = [
      '-c',
      'emulator=true',
      '-c',
      `runtimeImage=${runtimeImage}`,
      '-c',
      `config=${configFile}`,
      ...(opts.newAgents ? ['-c', 'newAgents=*'] : []),
    ];
    await cdklocal(
      aws,
      workDir,
      ['deploy', '--all', ...context, '--output', join(workDir, 'cdk.out'), '--require-approval', 'never', '--outputs-file', outputsFile],
      REPO,
    );
    const t2 = performance.now();
    const outputs = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>;
    const sm = new SecretsManagerClient(aws);
    for (const [target, values] of Object.entries(secrets)) await putSecretValues(sm, secretIdFor(config.fleet, target), values);

    const output = (stack: string, key: string) => {
      const value = outputs[stack]?.[key];
      if (!value) throw new Error(`no output ${stack}.${key}; have ${JSON.stringify(outputs)}`);
      return value;
    };
    const functionUrl = (stack: string, key: string) => `${aws.endpoint}/_aws/lambda-url/${new URL(output(stack, key)).hostname.split('.')[0]}`;
    const sqs = new SQSClient(aws);
    const depth = async (url: string) => {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      return Object.values(Attributes).reduce((n, v) => n + Number(v), 0);
    };
    return {
      config,
      workDir,
      outputs,
      seconds: { bootstrap: (t1 - t0) / 1000, deploy: (t2 - t1) / 1000 },
      output,
      functionUrl,
      postUpdate: (agentId, botToken, update) =>
        fetch(`${functionUrl(controlPlaneStackName(config.fleet), 'TelegramWebhookUrl')}/telegram/${agentId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(botToken) },
          body: JSON.stringify(update),
        }),
      async taskDefinition(agentId) {
        const { taskDefinition } = await ecsJson(aws, 'DescribeTaskDefinition', { taskDefinition: agentStackName(config.fleet, agentId) });
        return parseTaskDefinition(taskDefinition);
      },
      async accessPoint(id) {
        const { AccessPoints = [] } = await new EFSClient(aws).send(new DescribeAccessPointsCommand({ AccessPointId: id }));
        const ap = AccessPoints[0];
        if (!ap?.AccessPointId) throw new Error(`the emulator has no access point ${id}`);
        const info = ap.RootDirectory?.CreationInfo;
        return {
          accessPointId: ap.AccessPointId,
          posixUser: ap.PosixUser ? { uid: Number(ap.PosixUser.Uid), gid: Number(ap.PosixUser.Gid) } : undefined,
          rootDirectory: {
            path: ap.RootDirectory?.Path,
            creationInfo: info ? { ownerUid: Number(info.OwnerUid), ownerGid: Number(info.OwnerGid), permissions: String(info.Permissions) } : undefined,
          },
        };
      },
      async pending(agentId) {
        const stack = agentStackName(config.fleet, agentId);
        return (await depth(output(stack, 'InboxUrl'))) + (await depth(output(stack, 'OutboxUrl')));
      },
      remove: () => rmSync(workDir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(workDir, { recursive: true, force: true });
    throw err;
  }
}
