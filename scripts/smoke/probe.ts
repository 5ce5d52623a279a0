// The live checks of a smoke run on the deployed fleet: a signed Telegram update to the real
// Function URL, the agent's answer read from its own outbox (the outbox's event source mapping
// is turned off first, so λ outbox does not take it: the Bot API address is made up), and the
// isolation cases (isolation-cases.ts) asked of IAM's policy simulator for the deployed roles.
import { CloudFormationClient, ListStackResourcesCommand, type StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { IAMClient, SimulatePrincipalPolicyCommand, type ContextEntry } from '@aws-sdk/client-iam';
import {
  GetEventSourceMappingCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, GetQueueAttributesCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AwsSettings } from '../../cli/aws-env.ts';
import {
  agentSecretName,
  agentStackName,
  controlPlaneStackName,
  dashboardSecretName,
  functionName,
  outboxQueueName,
  telegramSecretName,
} from '../../shared/config/names.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { isolationCases, type IsolationCase, type SmokePrincipal, type SmokeResources } from './isolation-cases.ts';
import { SMOKE_ACCOUNT, SMOKE_AGENT, SMOKE_USER } from './smoke-plan.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stackResources(cfn: CloudFormationClient, stackName: string): Promise<StackResourceSummary[]> {
  const out: StackResourceSummary[] = [];
  let NextToken: string | undefined;
  do {
    const page = await cfn.send(new ListStackResourcesCommand({ StackName: stackName, NextToken }));
    out.push(...(page.StackResourceSummaries ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return out;
}

/** A resource of the control plane's stack by type and logical id prefix (the media bucket, #16). */
async function controlPlanePhysical(cfn: CloudFormationClient, fleet: string, type: string, logicalPrefix: string): Promise<string> {
  const r = (await stackResources(cfn, controlPlaneStackName(fleet))).find((x) => x.ResourceType === type && x.LogicalResourceId?.startsWith(logicalPrefix));
  if (!r?.PhysicalResourceId) throw new Error(`no ${type} ${logicalPrefix}* in ${controlPlaneStackName(fleet)}`);
  return r.PhysicalResourceId;
}

/** The deployed fleet's ARNs the isolation cases name, and the role of each principal. */
export async function deployedResources(
  fleet: string,
  aws: AwsSettings,
  account: string,
  fileSystemId: string,
  model: string,
): Promise<{ resources: SmokeResources; roles: Record<SmokePrincipal, string> }> {
  const cfn = new CloudFormationClient(aws);
  const agent = await stackResources(cfn, agentStackName(fleet, SMOKE_AGENT));
  const physical = (type: string, logicalPrefix: string) => {
    const r = agent.find((x) => x.ResourceType === type && x.LogicalResourceId?.startsWith(logicalPrefix));
    if (!r?.PhysicalResourceId) throw new Error(`no ${type} ${logicalPrefix}* in ${agentStackName(fleet, SMOKE_AGENT)}`);
    return r.PhysicalResourceId;
  };
  const sm = new SecretsManagerClient(aws);
  const secretArn = async (id: string) => (await sm.send(new DescribeSecretCommand({ SecretId: id }))).ARN!;
  const iamRole = (name: string) => (name.startsWith('arn:') ? name : `arn:aws:iam::${account}:role/${name}`);
  const accessPoint = (id: string) => (id.startsWith('arn:') ? id : `arn:aws:elasticfilesystem:${aws.region}:${account}:access-point/${id}`);
  const lambda = new LambdaClient(aws);
  const fnRole = async (name: string) => (await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName(fleet, name) }))).Role!;
  const resources: SmokeResources = {
    region: aws.region,
    account,
    fleet,
    agentId: SMOKE_AGENT,
    agentSecretArn: await secretArn(agentSecretName(fleet, SMOKE_AGENT)),
    telegramSecretArn: await secretArn(telegramSecretName(fleet)),
    dashboardSecretArn: await secretArn(dashboardSecretName(fleet)),
    fileSystemArn: `arn:aws:elasticfilesystem:${aws.region}:${account}:file-system/${fileSystemId}`,
    workspaceAccessPointArn: accessPoint(physical('AWS::EFS::AccessPoint', 'RuntimeWorkspace')),
    archiveAccessPointArn: accessPoint(physical('AWS::EFS::AccessPoint', 'ArchiveAccessPoint')),
    archiveRoleArn: iamRole(physical('AWS::IAM::Role', 'ArchiveTaskRole')),
    modelArn: model.startsWith('bedrock/') ? `arn:aws:bedrock:${aws.region}::foundation-model/${model.slice('bedrock/'.length)}` : undefined,
    mediaBucketArn: `arn:aws:s3:::${await controlPlanePhysical(cfn, fleet, 'AWS::S3::Bucket', 'MediaBucket')}`,
  };
  const roles = {
    task: iamRole(physical('AWS::IAM::Role', 'RuntimeTaskRole')),
    archive: resources.archiveRoleArn,
    'fn:compute': await fnRole('compute'),
    'fn:telegram-webhook': await fnRole('telegram-webhook'),
    'fn:outbox': await fnRole('outbox'),
    'fn:dashboard': await fnRole('dashboard'),
    'fn:health': await fnRole('health'),
    'fn:cron-dispatch': await fnRole('cron-dispatch'),
  } satisfies Record<SmokePrincipal, string>;
  return { resources, roles };
}

/** Turns off the mapping from the agent's outbox to λ outbox, so the answer stays in the queue for us. */
export async function holdOutbox(fleet: string, aws: AwsSettings, account: string): Promise<void> {
  const lambda = new LambdaClient(aws);
  const queueArn = `arn:aws:sqs:${aws.region}:${account}:${outboxQueueName(fleet, SMOKE_AGENT)}`;
  const { EventSourceMappings = [] } = await lambda.send(
    new ListEventSourceMappingsCommand({ FunctionName: functionName(fleet, 'outbox'), EventSourceArn: queueArn }),
  );
  const mapping = EventSourceMappings[0];
  if (!mapping?.UUID) throw new Error(`no event source mapping from ${queueArn} to ${functionName(fleet, 'outbox')}`);
  await lambda.send(new UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: false }));
  for (let i = 0; i < 60; i++) {
    if ((await lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.UUID }))).State === 'Disabled') return;
    await sleep(5_000);
  }
  throw new Error('the outbox mapping did not turn off within 5 minutes');
}

/** POSTs a Telegram update to the deployed webhook, signed as Telegram signs it; returns the envelope id it was queued as. */
export async function sendUpdate(fleet: string, outputs: Record<string, string>, botToken: string, text: string): Promise<string> {
  const url = outputs.TelegramWebhookUrl;
  if (!url) throw new Error(`${controlPlaneStackName(fleet)} has no TelegramWebhookUrl output`);
  const now = Math.floor(Date.now() / 1000);
  const update = {
    update_id: now,
    message: {
      message_id: 1,
      date: now,
      chat: { id: SMOKE_USER, type: 'private', first_name: 'Smoke' },
      from: { id: SMOKE_USER, is_bot: false, first_name: 'Smoke' },
      text,
    },
  };
  const res = await fetch(`${url.replace(/\/$/, '')}/telegram/${SMOKE_ACCOUNT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(botToken) },
    body: JSON.stringify(update),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => ({}))) as { ok?: boolean; envelopeId?: string };
  if (res.status !== 200 || !body.envelopeId) throw new Error(`the webhook answered ${res.status} ${JSON.stringify(body)}`);
  return body.envelopeId;
}

/** Reads the agent's outbox until the reply to `inboundId` comes, saying when the runtime first spoke. */
export async function awaitReply(
  fleet: string,
  aws: AwsSettings,
  inboundId: string,
  timeoutMs: number,
  say: (line: string) => void,
): Promise<{ text: string; firstHeartbeatMs?: number; replyMs: number }> {
  const sqs = new SQSClient(aws);
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: outboxQueueName(fleet, SMOKE_AGENT) }));
  const started = Date.now();
  let firstHeartbeatMs: number | undefined;
  while (Date.now() - started < timeoutMs) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }));
    for (const m of Messages) {
      const envelope = JSON.parse(m.Body ?? '{}') as { kind?: string; inReplyTo?: string; text?: string };
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
      if (envelope.kind === 'heartbeat' && firstHeartbeatMs === undefined) {
        firstHeartbeatMs = Date.now() - started;
        say(`  the runtime is up: first heartbeat after ${(firstHeartbeatMs / 1000).toFixed(0)} s`);
      }
      if (envelope.kind === 'reply' && envelope.inReplyTo === inboundId) return { text: envelope.text ?? '', firstHeartbeatMs, replyMs: Date.now() - started };
    }
    if (Messages.length === 0) {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
      say(`  waiting for the answer (${((Date.now() - started) / 1000).toFixed(0)} s; outbox ${Attributes?.ApproximateNumberOfMessages ?? '?'} waiting)`);
    }
  }
  throw new Error(`no reply to ${inboundId} within ${timeoutMs / 60_000} minutes: see clawfleet status --aws and clawfleet logs --agent ${SMOKE_AGENT} --aws`);
}

/** Asks IAM's simulator each case against the deployed role; returns the ones it disagrees with. */
export async function simulate(cases: IsolationCase[], roles: Record<SmokePrincipal, string>, aws: AwsSettings): Promise<string[]> {
  const iam = new IAMClient(aws);
  const wrong: string[] = [];
  for (const c of cases) {
    const contextEntries: ContextEntry[] = Object.entries(c.context ?? {}).map(([key, value]) => ({
      ContextKeyName: key,
      ContextKeyValues: [value],
      ContextKeyType: value === 'true' || value === 'false' ? 'boolean' : 'string',
    }));
    const out = await iam.send(
      new SimulatePrincipalPolicyCommand({
        PolicySourceArn: roles[c.principal],
        ActionNames: [c.action],
        ResourceArns: [c.resource],
        ContextEntries: contextEntries,
      }),
    );
    const decision = out.EvaluationResults?.[0]?.EvalDecision;
    const got = decision === 'allowed' ? 'Allowed' : 'Denied';
    if (got !== c.expected) wrong.push(`${c.principal} ${c.action} on ${c.resource} (${c.why}): expected ${c.expected}, IAM says ${decision}`);
  }
  return wrong;
}

export { isolationCases };
