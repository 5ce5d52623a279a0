// The isolation matrix the smoke test checks against the deployed policies (IAM
// SimulatePrincipalPolicy): for the one agent's task and archive roles and each control-plane
// function, what it may and may not do. The same cases are evaluated offline against the
// synthesized templates (test/infra/smoke-isolation.test.ts), so their expectations are the
// design's, not guesses; the smoke shows AWS agrees.
import { agentServiceName, clusterName, functionName, tableNames } from '../../shared/config/names.ts';

export interface SmokeResources {
  region: string;
  account: string;
  fleet: string;
  agentId: string;
  /** Full ARNs (with their random suffix) of the agent's secret and the control plane's. */
  agentSecretArn: string;
  telegramSecretArn: string;
  dashboardSecretArn: string;
  fileSystemArn: string;
  workspaceAccessPointArn: string;
  archiveAccessPointArn: string;
  archiveRoleArn: string;
  /** The foundation model the agent may call, if it is on Bedrock. */
  modelArn?: string | undefined;
  /** The fleet's media bucket (#16): attachments in, agents' files out. */
  mediaBucketArn: string;
}

/** Who is asked about: the agent's roles, and each function by name. */
export type SmokePrincipal = 'task' | 'archive' | `fn:${'compute' | 'telegram-webhook' | 'outbox' | 'dashboard' | 'health' | 'cron-dispatch'}`;

export interface IsolationCase {
  principal: SmokePrincipal;
  action: string;
  resource: string;
  context?: Record<string, string>;
  expected: 'Allowed' | 'Denied';
  why: string;
}

export function isolationCases(r: SmokeResources): IsolationCase[] {
  const arn = (service: string, rest: string) => `arn:aws:${service}:${r.region}:${r.account}:${rest}`;
  const queue = (name: string) => arn('sqs', name);
  const own = { inbox: queue(`${r.fleet}-agent-${r.agentId}.fifo`), outbox: queue(`${r.fleet}-outbox-${r.agentId}.fifo`) };
  // An agent that does not exist yet: what its resources would be called.
  const other = {
    secret: arn('secretsmanager', `secret:clawfleet/${r.fleet}/agents/other-AbC123`),
    inbox: queue(`${r.fleet}-agent-other.fifo`),
    outbox: queue(`${r.fleet}-outbox-other.fifo`),
  };
  const service = arn('ecs', `service/${clusterName(r.fleet)}/${agentServiceName(r.agentId)}`);
  const otherFleetService = arn('ecs', `service/clawfleet-elsewhere/${agentServiceName(r.agentId)}`);
  const compute = arn('lambda', `function:${functionName(r.fleet, 'compute')}`);
  const registry = arn('dynamodb', `table/${tableNames(r.fleet).registry}`);
  const archiveTask = arn('ecs', `task-definition/${r.fleet}-agent-${r.agentId}-archive:1`);
  const nfs = (
    principal: SmokePrincipal,
    action: string,
    accessPoint: string | undefined,
    expected: IsolationCase['expected'],
    why: string,
  ): IsolationCase => ({
    principal,
    action,
    resource: r.fileSystemArn,
    context: {
      'aws:SecureTransport': 'true',
      'elasticfilesystem:AccessedViaMountTarget': 'true',
      ...(accessPoint ? { 'elasticfilesystem:AccessPointArn': accessPoint } : {}),
    },
    expected,
    why,
  });

  const cases: IsolationCase[] = [
    { principal: 'task', action: 'secretsmanager:GetSecretValue', resource: r.agentSecretArn, expected: 'Allowed', why: 'its own secret' },
    { principal: 'task', action: 'secretsmanager:GetSecretValue', resource: other.secret, expected: 'Denied', why: "another agent's secret" },
    { principal: 'task', action: 'secretsmanager:GetSecretValue', resource: r.telegramSecretArn, expected: 'Denied', why: 'the bot tokens' },
    { principal: 'task', action: 'secretsmanager:PutSecretValue', resource: r.agentSecretArn, expected: 'Denied', why: 'writing its own secret' },
    { principal: 'task', action: 'sqs:ReceiveMessage', resource: own.inbox, expected: 'Allowed', why: 'its own queue' },
    { principal: 'task', action: 'sqs:SendMessage', resource: own.outbox, expected: 'Allowed', why: 'its own outbox' },
    { principal: 'task', action: 'sqs:ReceiveMessage', resource: own.outbox, expected: 'Denied', why: 'reading its outbox (the control plane does)' },
    { principal: 'task', action: 'sqs:SendMessage', resource: other.inbox, expected: 'Denied', why: "another agent's queue" },
    { principal: 'task', action: 'sqs:SendMessage', resource: other.outbox, expected: 'Denied', why: 'speaking as another agent' },
    { principal: 'task', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'its own service' },
    { principal: 'task', action: 'lambda:InvokeFunction', resource: compute, expected: 'Denied', why: 'asking compute' },
    { principal: 'task', action: 'dynamodb:PutItem', resource: registry, expected: 'Denied', why: 'the registry' },
    nfs('task', 'elasticfilesystem:ClientWrite', r.workspaceAccessPointArn, 'Allowed', 'its workspace'),
    nfs('task', 'elasticfilesystem:ClientMount', r.archiveAccessPointArn, 'Denied', 'its archive'),
    nfs('task', 'elasticfilesystem:ClientRootAccess', r.workspaceAccessPointArn, 'Denied', 'root on the file system'),
    nfs('task', 'elasticfilesystem:ClientMount', undefined, 'Denied', 'the file system outside an access point'),
    nfs('archive', 'elasticfilesystem:ClientWrite', r.workspaceAccessPointArn, 'Allowed', "the agent's workspace, to empty it"),
    nfs('archive', 'elasticfilesystem:ClientWrite', r.archiveAccessPointArn, 'Allowed', 'its archive'),
    nfs('archive', 'elasticfilesystem:ClientRootAccess', r.archiveAccessPointArn, 'Denied', 'root on the file system'),
    nfs('archive', 'elasticfilesystem:ClientMount', undefined, 'Denied', 'the file system outside an access point'),
    { principal: 'archive', action: 'secretsmanager:GetSecretValue', resource: r.agentSecretArn, expected: 'Denied', why: "the agent's secret" },
    { principal: 'archive', action: 'sqs:ReceiveMessage', resource: own.inbox, expected: 'Denied', why: "the agent's queue" },
    { principal: 'fn:compute', action: 'ecs:UpdateService', resource: service, expected: 'Allowed', why: "the agent's service" },
    { principal: 'fn:compute', action: 'ecs:UpdateService', resource: otherFleetService, expected: 'Denied', why: "another fleet's service" },
    { principal: 'fn:compute', action: 'secretsmanager:GetSecretValue', resource: r.telegramSecretArn, expected: 'Denied', why: 'the bot tokens' },
    { principal: 'fn:telegram-webhook', action: 'secretsmanager:GetSecretValue', resource: r.telegramSecretArn, expected: 'Allowed', why: 'the bot tokens' },
    { principal: 'fn:telegram-webhook', action: 'sqs:SendMessage', resource: own.inbox, expected: 'Allowed', why: "queueing into the agent's queue" },
    { principal: 'fn:telegram-webhook', action: 'lambda:InvokeFunction', resource: compute, expected: 'Allowed', why: 'asking compute to wake the agent' },
    { principal: 'fn:telegram-webhook', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'ECS power (a public URL)' },
    { principal: 'fn:outbox', action: 'secretsmanager:GetSecretValue', resource: r.telegramSecretArn, expected: 'Allowed', why: 'the bot tokens, to deliver' },
    { principal: 'fn:outbox', action: 'sqs:ReceiveMessage', resource: own.outbox, expected: 'Allowed', why: "the agent's outbox" },
    { principal: 'fn:outbox', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'ECS power' },
    { principal: 'fn:dashboard', action: 'secretsmanager:GetSecretValue', resource: r.dashboardSecretArn, expected: 'Allowed', why: 'its sign-in token' },
    {
      principal: 'fn:dashboard',
      action: 'secretsmanager:GetSecretValue',
      resource: r.telegramSecretArn,
      expected: 'Denied',
      why: 'the bot tokens (a public URL)',
    },
    { principal: 'fn:dashboard', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'ECS power (a public URL)' },
    { principal: 'fn:health', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'ECS power (it asks compute)' },
    { principal: 'fn:cron-dispatch', action: 'ecs:UpdateService', resource: service, expected: 'Denied', why: 'ECS power (it asks compute)' },
  ];
  // Media (#16): the agent's own in/ read, its own out/ read and written; another agent's neither; the webhook writes in/, the outbox reads out/.
  const media = (agent: string, dir: 'in' | 'out') => `${r.mediaBucketArn}/${r.fleet}/agents/${agent}/${dir}/x/photo.jpg`;
  cases.push(
    { principal: 'task', action: 's3:GetObject', resource: media(r.agentId, 'in'), expected: 'Allowed', why: 'its own attachments' },
    { principal: 'task', action: 's3:PutObject', resource: media(r.agentId, 'out'), expected: 'Allowed', why: 'its own files to send' },
    {
      principal: 'task',
      action: 's3:PutObject',
      resource: media(r.agentId, 'in'),
      expected: 'Denied',
      why: 'writing its own attachments (the control plane does)',
    },
    { principal: 'task', action: 's3:GetObject', resource: media('other', 'in'), expected: 'Denied', why: "another agent's attachments" },
    { principal: 'task', action: 's3:PutObject', resource: media('other', 'out'), expected: 'Denied', why: 'sending as another agent' },
    {
      principal: 'fn:telegram-webhook',
      action: 's3:PutObject',
      resource: media(r.agentId, 'in'),
      expected: 'Allowed',
      why: 'keeping an attachment for the agent',
    },
    {
      principal: 'fn:telegram-webhook',
      action: 's3:GetObject',
      resource: media(r.agentId, 'in'),
      expected: 'Denied',
      why: 'reading attachments back (a public URL)',
    },
    {
      principal: 'fn:telegram-webhook',
      action: 's3:PutObject',
      resource: media(r.agentId, 'out'),
      expected: 'Denied',
      why: "writing an agent's outgoing files",
    },
    { principal: 'fn:outbox', action: 's3:GetObject', resource: media(r.agentId, 'out'), expected: 'Allowed', why: "the agent's files to send" },
    { principal: 'fn:outbox', action: 's3:GetObject', resource: media(r.agentId, 'in'), expected: 'Denied', why: "the agent's attachments" },
    { principal: 'fn:dashboard', action: 's3:GetObject', resource: media(r.agentId, 'in'), expected: 'Denied', why: 'attachments (a public URL)' },
  );
  if (r.modelArn) {
    cases.push({ principal: 'task', action: 'bedrock:InvokeModel', resource: r.modelArn, expected: 'Allowed', why: 'its own model' });
    cases.push({
      principal: 'task',
      action: 'bedrock:InvokeModel',
      resource: `arn:aws:bedrock:${r.region}::foundation-model/anthropic.claude-3-opus-20240229-v1:0`,
      expected: 'Denied',
      why: 'a model it does not use',
    });
  }
  // Every function, and the runtime: no agent secret, no archive task, no handing its role on.
  const all: SmokePrincipal[] = ['task', 'fn:compute', 'fn:telegram-webhook', 'fn:outbox', 'fn:dashboard', 'fn:health', 'fn:cron-dispatch'];
  for (const p of all) {
    if (p !== 'task')
      cases.push({ principal: p, action: 'secretsmanager:GetSecretValue', resource: r.agentSecretArn, expected: 'Denied', why: "the agent's secret" });
    cases.push({ principal: p, action: 'ecs:RunTask', resource: archiveTask, expected: 'Denied', why: 'running the archive task' });
    cases.push({
      principal: p,
      action: 'iam:PassRole',
      resource: r.archiveRoleArn,
      context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
      expected: 'Denied',
      why: "passing the archive task's role",
    });
  }
  return cases;
}
