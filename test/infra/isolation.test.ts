// The isolation matrix: every principal's synthesized IAM policies, evaluated offline
// (@cloud-copilot/iam-simulate) against every agent's secret, queues, workspace, staging
// prefix, fleet skills object and models and every control-plane table and secret. Allowed exactly where the
// design says, denied everywhere else.
import { join } from 'node:path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { ACCOUNT, TemplateResolver } from './resolve-template.ts';
import { ALLOW, fleetWithSkills } from './fleet-skills-fixture.ts';
import { EXAMPLE_CONFIG, synthFleet, type SynthedFleet } from './synth-fleet.ts';

/** The example fleet, with two agents on Bedrock (one through an inference profile), hooks, a heartbeat, a cron job and an operator chat. */
const CONFIG: FleetConfigInput = {
  ...EXAMPLE_CONFIG,
  hooks: { tokenSecret: 'HOOKS_TOKEN' },
  operator: { email: 'ops@example.com', telegram: { accountId: 'jerry', chatId: 5001 } },
  cron: { jobs: [{ id: 'daily', agentId: 'fran', schedule: { kind: 'every', every: '1d' }, payload: { kind: 'systemEvent', text: 'plan the day' } }] },
  models: { providers: { ...EXAMPLE_CONFIG.models.providers, bedrock: { api: 'bedrock-converse' } } },
  agents: {
    ...EXAMPLE_CONFIG.agents,
    list: EXAMPLE_CONFIG.agents.list
      .map((a) => ({ ...a, ...(ALLOW[a.id] ? { skills: ALLOW[a.id] } : {}) }))
      .map((a) =>
        a.id === 'grif'
          ? { ...a, model: 'bedrock/anthropic.claude-3-haiku-20240307-v1:0' }
          : a.id === 'ray'
            ? { ...a, model: { primary: 'bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0', fallbacks: ['openai/gpt-4.1-mini'] } }
            : a.id === 'fran'
              ? { ...a, heartbeat: { every: '30m' }, budget: { dailyUsd: 2 } }
              : a.id === 'jerry'
                ? { ...a, budget: { monthlyUsd: 50 } }
                : a,
      ),
  },
};
/** The agents with a budget (#31): each keeps its own ledger in the spend table. */
const METERED = new Set(['jerry', 'fran']);
const AGENTS = ['jerry', 'fran', 'grif', 'ray'];
const MODELS: Record<string, string> = {
  grif: 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
  ray: 'arn:aws:bedrock:us-east-1:111122223333:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0',
};

type Decision = 'Allowed' | 'Denied';
interface Principal {
  label: string;
  policies: { name: string; policy: unknown }[];
}

let fleet: SynthedFleet;
let resolver: TemplateResolver;
/** Concrete ARNs of every agent's resources. */
let res: Record<
  string,
  {
    secret: string;
    inbox: string;
    inboxDlq: string;
    outbox: string;
    outboxDlq: string;
    accessPoint: string;
    archiveAccessPoint: string;
    archiveRole: string;
    archiveTask: string;
  }
>;
let tables: Record<string, string>;
let telegramSecret: string;
let hooksSecret: string;
let dashboardSecret: string;
let schedulerRole: string;
let schedulesDlq: string;
let computeDlq: string;
let fileSystem: string;
let fileSystemPolicy: unknown;
/** The workspace staging bucket's ARN and its bucket policy (TLS only). */
let staging: string;
let stagingPolicy: unknown;
/** The media bucket's ARN and its bucket policy (#16: attachments in, agents' files out). */
let media: string;
let mediaPolicy: unknown;

const logicalId = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const resolveIn = (c: IConstruct, v: unknown) => resolver.resolve(Stack.of(c).stackName, v);

function principalOf(label: string, role: IConstruct): Principal {
  return { label, policies: resolver.rolePolicies(Stack.of(role).stackName, logicalId(role)) };
}

async function decide(
  p: Principal,
  action: string,
  resource: string,
  extra: { context?: Record<string, string>; resourcePolicy?: unknown } = {},
): Promise<Decision> {
  const result = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/${p.label}`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: { 'aws:SecureTransport': 'true', ...extra.context },
      },
      identityPolicies: p.policies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(extra.resourcePolicy ? { resourcePolicy: extra.resourcePolicy } : {}),
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(`simulation of ${action} on ${resource} failed: ${JSON.stringify(result.errors)}`);
  return result.overallResult === 'Allowed' ? 'Allowed' : 'Denied';
}

interface Check {
  action: string;
  resource: string;
  expected: Decision;
  context?: Record<string, string>;
  resourcePolicy?: unknown;
}

/** Runs every check and reports all mismatches at once, so a failure shows the whole picture. */
async function expectMatrix(p: Principal, checks: Check[]): Promise<void> {
  const wrong: string[] = [];
  for (const c of checks) {
    const got = await decide(p, c.action, c.resource, c);
    if (got !== c.expected)
      wrong.push(`${p.label}: ${c.action} on ${c.resource}${c.context ? ` ${JSON.stringify(c.context)}` : ''}: expected ${c.expected}, got ${got}`);
  }
  expect(wrong).toEqual([]);
  expect(checks.length).toBeGreaterThan(0);
}

const EFS_ACTIONS = ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite', 'elasticfilesystem:ClientRootAccess'];

/**
 * An NFS client's request as EFS evaluates it: every mount from a runtime comes through a
 * mount target (AccessedViaMountTarget), over TLS, through an access point or none, with
 * the file-system policy beside the identity policies.
 */
const nfs = (action: string, accessPoint: string | undefined, expected: Decision): Check => ({
  action,
  resource: fileSystem,
  context: { 'elasticfilesystem:AccessedViaMountTarget': 'true', ...(accessPoint ? { 'elasticfilesystem:AccessPointArn': accessPoint } : {}) },
  resourcePolicy: fileSystemPolicy,
  expected,
});

const SQS_ACTIONS = ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:PurgeQueue'];
const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Scan',
  'dynamodb:Query',
];

beforeAll(() => {
  // Fleet skills (#19): each agent's own set, as a file asset of its own stack.
  fleet = synthFleet(CONFIG, { config: join(fleetWithSkills(), 'clawfleet.json') });
  resolver = new TemplateResolver(fleet.templates);
  const cp = fleet.stacks.controlPlane;
  res = Object.fromEntries(
    AGENTS.map((id) => {
      const s = fleet.stacks.agents.get(id)!;
      const arn = (q: { queueArn: string }) => resolveIn(s, Stack.of(s).resolve(q.queueArn));
      return [
        id,
        {
          secret: resolveIn(s, Stack.of(s).resolve(s.secret.secretArn)),
          inbox: arn(s.queues.inbox),
          inboxDlq: arn(s.queues.inboxDlq),
          outbox: arn(s.queues.outbox),
          outboxDlq: arn(s.queues.outboxDlq),
          accessPoint: resolveIn(s, Stack.of(s).resolve(s.runtime.accessPoint.accessPointArn)),
          archiveAccessPoint: resolveIn(s, Stack.of(s).resolve(s.archive.accessPoint.accessPointArn)),
          archiveRole: resolveIn(s, Stack.of(s).resolve(s.archive.taskRole.roleArn)),
          archiveTask: `arn:aws:ecs:us-east-1:${ACCOUNT}:task-definition/demo-agent-${id}-archive:1`,
        },
      ];
    }),
  );
  tables = Object.fromEntries(Object.entries(cp.tables.tables).map(([k, t]) => [k, resolveIn(cp, cp.resolve(t.tableArn))]));
  telegramSecret = resolveIn(cp, cp.resolve(cp.telegramSecrets[0]!.secretArn));
  hooksSecret = resolveIn(cp, cp.resolve(cp.hooksSecret!.secretArn));
  dashboardSecret = resolveIn(cp, cp.resolve(cp.dashboardSecret.secretArn));
  schedulerRole = resolveIn(cp, cp.resolve(cp.cronInvoker.role.roleArn));
  schedulesDlq = resolveIn(cp, cp.resolve(cp.cronInvoker.deadLetters.queueArn));
  computeDlq = `arn:aws:sqs:us-east-1:${ACCOUNT}:demo-compute-dlq`;
  fileSystem = resolveIn(cp, cp.resolve(cp.network.fileSystem.fileSystemArn));
  fileSystemPolicy = resolver.resolve(cp.stackName, resolver.resource(cp.stackName, logicalId(cp.network.fileSystem)).Properties.FileSystemPolicy);
  staging = resolveIn(cp, cp.resolve(cp.staging.bucket.bucketArn));
  stagingPolicy = resolver.resolve(cp.stackName, resolver.resource(cp.stackName, logicalId(cp.staging.bucket.policy!)).Properties.PolicyDocument);
  media = resolveIn(cp, cp.resolve(cp.media.bucket.bucketArn));
  mediaPolicy = resolver.resolve(cp.stackName, resolver.resource(cp.stackName, logicalId(cp.media.bucket.policy!)).Properties.PolicyDocument);
});

/** A media object (#16) as the bucket evaluates the request: its policy beside the identity policies, over TLS. */
const mediaCheck = (action: string, key: string, expected: Decision, context: Record<string, string> = {}): Check => ({
  action,
  resource: `${media}/${key}`,
  context,
  resourcePolicy: mediaPolicy,
  expected,
});
const MEDIA_DIRS = ['in', 'out'] as const;

const S3_OBJECT_ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'];

/** An S3 request as the bucket evaluates it: the bucket policy beside the identity policies, over TLS. */
const s3Check = (action: string, key: string | undefined, expected: Decision, context: Record<string, string> = {}): Check => ({
  action,
  resource: key === undefined ? staging : `${staging}/${key}`,
  context,
  resourcePolicy: stagingPolicy,
  expected,
});

/** Every agent's staging prefix: its objects and its listing. */
const stagingChecks = (allowed: (agent: string) => boolean): Check[] =>
  AGENTS.flatMap((agent) => [
    ...S3_OBJECT_ACTIONS.map((action) => s3Check(action, `${agent}/objects/0123abcd`, allowed(agent) ? 'Allowed' : 'Denied')),
    s3Check('s3:ListBucket', undefined, allowed(agent) ? 'Allowed' : 'Denied', { 's3:prefix': `${agent}/objects/` }),
  ]);

/** The deployment's assets bucket (the CDK bootstrap's), where each agent's fleet skills bundle is a file asset. */
const ASSETS_BUCKET = `arn:aws:s3:::cdk-hnb659fds-assets-${ACCOUNT}-us-east-1`;
/** An agent's fleet skills bundle, when its allow list admits any. */
const skillsObject = (agent: string): string | undefined => {
  const skills = fleet.stacks.agents.get(agent)!.fleetSkills;
  return skills && `${ASSETS_BUCKET}/${skills.asset.assetHash}.gz`;
};

describe('each agent’s task role', () => {
  it('is given the fleet skills its allow list admits: a bundle of its own for every agent but the one that admits none', () => {
    expect(AGENTS.map((a) => skillsObject(a) !== undefined)).toEqual(AGENTS.map((a) => ALLOW[a]?.length !== 0));
    expect(new Set(AGENTS.map(skillsObject).filter(Boolean)).size).toBe(3);
  });

  it.each(AGENTS)('%s reaches its own secret, queues, workspace and models, and nothing of any other agent or the control plane', async (me) => {
    const role = principalOf(`task-${me}`, fleet.stacks.agents.get(me)!.runtime.taskRole);
    const checks: Check[] = [];
    for (const other of AGENTS) {
      const r = res[other]!;
      const mine = other === me;
      checks.push({ action: 'secretsmanager:GetSecretValue', resource: r.secret, expected: mine ? 'Allowed' : 'Denied' });
      checks.push({ action: 'secretsmanager:PutSecretValue', resource: r.secret, expected: 'Denied' });
      for (const action of SQS_ACTIONS) {
        const consume = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'].includes(action);
        checks.push({ action, resource: r.inbox, expected: mine && consume ? 'Allowed' : 'Denied' });
        checks.push({ action, resource: r.outbox, expected: mine && action === 'sqs:SendMessage' ? 'Allowed' : 'Denied' });
        checks.push({ action, resource: r.inboxDlq, expected: mine && action === 'sqs:SendMessage' ? 'Allowed' : 'Denied' });
        checks.push({ action, resource: r.outboxDlq, expected: 'Denied' });
      }
      for (const action of ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'])
        checks.push(nfs(action, r.accessPoint, mine ? 'Allowed' : 'Denied'));
      // The archive of a removed workspace, its own included: only the archive task reaches it.
      for (const action of EFS_ACTIONS) checks.push(nfs(action, r.archiveAccessPoint, 'Denied'));
      // Root on the file system through any access point, its own included: nobody.
      checks.push(nfs('elasticfilesystem:ClientRootAccess', r.accessPoint, 'Denied'));
      if (MODELS[other]) checks.push({ action: 'bedrock:InvokeModel', resource: MODELS[other]!, expected: mine ? 'Allowed' : 'Denied' });
    }
    // The file system's root, outside any access point.
    for (const action of EFS_ACTIONS) checks.push(nfs(action, undefined, 'Denied'));
    // No staging prefix, its own included: moving the workspace is its one-off task's, whose role the agent's code never holds.
    checks.push(...stagingChecks(() => false));
    checks.push(
      s3Check('s3:GetObject', `${me}-2/objects/0123abcd`, 'Denied'),
      s3Check('s3:PutObject', `${me}`, 'Denied'),
      s3Check('s3:ListBucket', undefined, 'Denied'),
      s3Check('s3:ListBucket', undefined, 'Denied', { 's3:prefix': '' }),
      s3Check('s3:ListBucket', undefined, 'Denied', { 's3:prefix': `${me}-2/` }),
      s3Check('s3:PutBucketPolicy', undefined, 'Denied'),
      s3Check('s3:DeleteBucket', undefined, 'Denied'),
      { action: 's3:GetObject', resource: `arn:aws:s3:::another-fleets-bucket/${me}/objects/0123abcd`, expected: 'Denied' },
    );
    // Its own prefix over plain HTTP: the bucket policy refuses it whatever the role allows.
    checks.push(s3Check('s3:GetObject', `${me}/objects/0123abcd`, 'Denied', { 'aws:SecureTransport': 'false' }));
    // Media (#16): its own in/ read, its own out/ read and written; every other agent's in/ and out/ denied, and nothing deleted.
    for (const other of AGENTS) {
      for (const dir of MEDIA_DIRS) {
        const key = `demo/agents/${other}/${dir}/tg.${other}.1/photo.jpg`;
        const mine = other === me;
        checks.push(
          mediaCheck('s3:GetObject', key, mine ? 'Allowed' : 'Denied'),
          mediaCheck('s3:PutObject', key, mine && dir === 'out' ? 'Allowed' : 'Denied'),
          mediaCheck('s3:DeleteObject', key, 'Denied'),
        );
      }
    }
    checks.push(
      mediaCheck('s3:GetObject', `demo/agents/${me}-2/in/x/photo.jpg`, 'Denied'),
      mediaCheck('s3:PutObject', `demo/agents/${me}-2/out/x/photo.jpg`, 'Denied'),
      mediaCheck('s3:GetObject', `prod/agents/${me}/in/x/photo.jpg`, 'Denied'),
      mediaCheck('s3:GetObject', `demo/agents/${me}/in/x/photo.jpg`, 'Denied', { 'aws:SecureTransport': 'false' }),
      { action: 's3:ListBucket', resource: media, resourcePolicy: mediaPolicy, expected: 'Denied' },
      { action: 's3:PutBucketPolicy', resource: media, resourcePolicy: mediaPolicy, expected: 'Denied' },
    );
    // Fleet skills (#19): its own bundle read, no other agent's, nothing else of the assets bucket.
    for (const other of AGENTS) {
      const object = skillsObject(other);
      if (!object) continue;
      checks.push(
        { action: 's3:GetObject', resource: object, expected: other === me ? 'Allowed' : 'Denied' },
        { action: 's3:PutObject', resource: object, expected: 'Denied' },
        { action: 's3:DeleteObject', resource: object, expected: 'Denied' },
      );
    }
    checks.push(
      { action: 's3:GetObject', resource: `${ASSETS_BUCKET}/0123abcd.zip`, expected: 'Denied' },
      { action: 's3:ListBucket', resource: ASSETS_BUCKET, expected: 'Denied' },
    );
    checks.push({ action: 'secretsmanager:GetSecretValue', resource: telegramSecret, expected: 'Denied' });
    for (const other of AGENTS)
      checks.push(
        ...serviceChecks(other, 'Denied')
          .slice(0, 1)
          .map((c) => ({ ...c, expected: 'Denied' as const })),
      );
    // Every table, the spend table included, for a request that names no key of its own ledger.
    for (const table of Object.values(tables)) for (const action of TABLE_ACTIONS) checks.push({ action, resource: table, expected: 'Denied' });
    checks.push(...spendLedgerChecks(me));
    // Nothing of the control plane's: its secrets, schedules, the scheduler's role and queue, its functions.
    checks.push(...controlPlaneOnly().map((p) => ({ ...p, expected: 'Denied' as const })));
    await expectMatrix(role, checks);
  });

  it('lets an agent on an inference profile call the profile’s model in the regions it routes to, and no other model', async () => {
    const ray = principalOf('task-ray', fleet.stacks.agents.get('ray')!.runtime.taskRole);
    await expectMatrix(ray, [
      { action: 'bedrock:InvokeModelWithResponseStream', resource: MODELS.ray!, expected: 'Allowed' },
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0', expected: 'Allowed' },
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-opus-4-20250514-v1:0', expected: 'Denied' },
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0', expected: 'Denied' },
    ]);
  });
});

/**
 * Budgets (#31): the spend table as DynamoDB evaluates a request, its leading key in the
 * context. A metered agent reads and writes its own ledger items (`<agent>#<month>`) and
 * nothing else: not every other agent's, not one whose id starts with its own, not the control
 * plane's counts and claims, not by update, delete, query or scan, not two keys at once.
 */
const spendLedgerChecks = (me: string): Check[] => {
  const keyed = (action: string, keys: string[], expected: Decision): Check => ({
    action,
    resource: tables.spend!,
    context: { 'dynamodb:LeadingKeys': keys } as unknown as Record<string, string>,
    expected,
  });
  const checks: Check[] = [];
  for (const other of AGENTS) {
    const own = other === me && METERED.has(me);
    for (const action of TABLE_ACTIONS) {
      const allowed = own && ['dynamodb:GetItem', 'dynamodb:PutItem'].includes(action);
      checks.push(keyed(action, [`${other}#2026-12`], allowed ? 'Allowed' : 'Denied'));
    }
    for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']) {
      checks.push(keyed(action, [`count:${other}#2026-12`], 'Denied'), keyed(action, [`usage:${other}#tg.${other}.1.usage.a.1`], 'Denied'));
    }
  }
  const other = AGENTS.find((a) => a !== me)!;
  checks.push(
    keyed('dynamodb:GetItem', [`${me}-2#2026-12`], 'Denied'),
    keyed('dynamodb:PutItem', [`${me}2026-12`], 'Denied'),
    keyed('dynamodb:BatchGetItem', [`${me}#2026-12`, `${other}#2026-12`], 'Denied'),
    keyed('dynamodb:PutItem', [`${me}#2026-12`], 'Denied'),
  );
  // The last check is allowed for a metered agent: its own month, written.
  checks.at(-1)!.expected = METERED.has(me) ? 'Allowed' : 'Denied';
  return checks;
};

/** ECS UpdateService on an agent's service; never on another cluster's or a non-agent service. */
const serviceChecks = (agentId: string, expected: Decision): Check[] => [
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${agentId}`, expected },
  { action: 'ecs:DeleteService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${agentId}`, expected: 'Denied' },
];

/** Another fleet in the same account: its queues, services, secrets and schedules. */
const otherFleetDenied = (): Check[] => [
  { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:prod-agent-jerry.fifo`, expected: 'Denied' },
  { action: 'sqs:ReceiveMessage', resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:prod-outbox-jerry.fifo`, expected: 'Denied' },
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-prod/agent-jerry`, expected: 'Denied' },
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/not-an-agent`, expected: 'Denied' },
  {
    action: 'secretsmanager:GetSecretValue',
    resource: `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:clawfleet/prod/control/telegram-AbC123`,
    expected: 'Denied',
  },
  { action: 'scheduler:CreateSchedule', resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/clawfleet-prod/agent-jerry-x`, expected: 'Denied' },
  { action: 'scheduler:CreateSchedule', resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/default/agent-jerry-x`, expected: 'Denied' },
];

/**
 * What one probe touches, so each principal's expectation reads as a rule over the whole
 * universe of probes: every one not allowed by the rule must be denied.
 */
type Probe = Omit<Check, 'expected'> & {
  kind:
    | 'agentSecret'
    | 'inbox'
    | 'outbox'
    | 'inboxDlq'
    | 'outboxDlq'
    | 'service'
    | 'table'
    | 'controlSecret'
    | 'schedule'
    | 'listSchedules'
    | 'passRole'
    | 'invoke'
    | 'schedulesDlq'
    | 'computeDlq'
    | 'archiveTask'
    | 'media';
  /** The table, control secret, schedule owner (agent/config/heartbeat) or function the probe names. */
  name?: string;
  agent?: string;
};

const SCHEDULE_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'];
const schedule = (name: string) => `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/clawfleet-demo/${name}`;
const lambdaArn = (name: string) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:demo-${name}`;

/** Probes only the control plane's functions may ever pass: its secrets, schedules, the scheduler role and queue, its functions. */
function controlPlaneOnly(): Probe[] {
  const probes: Probe[] = [];
  for (const [name, resource] of [
    ['telegram', telegramSecret],
    ['hooks', hooksSecret],
    ['dashboard', dashboardSecret],
  ] as const) {
    probes.push(
      { kind: 'controlSecret', name, action: 'secretsmanager:GetSecretValue', resource },
      { kind: 'controlSecret', name, action: 'secretsmanager:PutSecretValue', resource },
    );
  }
  for (const [owner, name] of [
    ['agent', 'agent-fran-tidy'],
    ['config', 'config-fran-daily'],
    ['heartbeat', 'heartbeat-fran'],
  ] as const) {
    for (const action of SCHEDULE_ACTIONS) probes.push({ kind: 'schedule', name: owner, action, resource: schedule(name) });
  }
  probes.push({ kind: 'listSchedules', action: 'scheduler:ListSchedules', resource: '*' });
  for (const service of ['scheduler.amazonaws.com', 'lambda.amazonaws.com']) {
    probes.push({ kind: 'passRole', name: 'scheduler', action: 'iam:PassRole', resource: schedulerRole, context: { 'iam:PassedToService': service } });
  }
  probes.push({
    kind: 'passRole',
    name: 'other',
    action: 'iam:PassRole',
    resource: `arn:aws:iam::${ACCOUNT}:role/demo-agent-fran-RuntimeTaskRole`,
    context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
  });
  for (const fn of ['cron-dispatch', 'outbox', 'telegram-webhook', 'compute'])
    probes.push({ kind: 'invoke', name: fn, action: 'lambda:InvokeFunction', resource: lambdaArn(fn) });
  // A version or alias of λ compute is another resource: asking is for the function itself only.
  probes.push({ kind: 'invoke', name: 'compute:alias', action: 'lambda:InvokeFunction', resource: `${lambdaArn('compute')}:live` });
  for (const action of ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:PurgeQueue']) probes.push({ kind: 'schedulesDlq', action, resource: schedulesDlq });
  for (const action of ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:PurgeQueue']) probes.push({ kind: 'computeDlq', action, resource: computeDlq });
  return probes;
}

/** Every probe: every agent's secret, queues and service, every table, and the control plane's own. */
function universe(): Probe[] {
  const probes: Probe[] = [];
  for (const agent of AGENTS) {
    const r = res[agent]!;
    probes.push({ kind: 'agentSecret', agent, action: 'secretsmanager:GetSecretValue', resource: r.secret });
    for (const kind of ['inbox', 'outbox', 'inboxDlq', 'outboxDlq'] as const) {
      for (const action of [...SQS_ACTIONS, 'sqs:GetQueueUrl']) probes.push({ kind, agent, action, resource: r[kind] });
    }
    for (const action of ['ecs:UpdateService', 'ecs:DeleteService']) {
      probes.push({ kind: 'service', agent, action, resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${agent}` });
    }
    // Its media (#16): the in/ prefix the webhook writes, the out/ prefix the outbox reads.
    for (const dir of MEDIA_DIRS) {
      for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
        probes.push({
          kind: 'media',
          agent,
          name: dir,
          action,
          resource: `${media}/demo/agents/${agent}/${dir}/tg.${agent}.1/photo.jpg`,
          resourcePolicy: mediaPolicy,
        });
      }
    }
    // Running an agent's archive task, or handing its role to anything: an operator's act alone.
    probes.push({ kind: 'archiveTask', agent, action: 'ecs:RunTask', resource: r.archiveTask });
    for (const service of ['ecs-tasks.amazonaws.com', 'lambda.amazonaws.com']) {
      probes.push({ kind: 'archiveTask', agent, action: 'iam:PassRole', resource: r.archiveRole, context: { 'iam:PassedToService': service } });
    }
  }
  for (const [name, arn] of Object.entries(tables)) for (const action of TABLE_ACTIONS) probes.push({ kind: 'table', name, action, resource: arn });
  return [...probes, ...controlPlaneOnly()];
}

type Rule = (p: Probe) => boolean;
const sqs =
  (kind: Probe['kind'], ...actions: string[]): Rule =>
  (p) =>
    p.kind === kind && actions.includes(p.action.replace('sqs:', ''));
const table =
  (name: string, ...actions: string[]): Rule =>
  (p) =>
    p.kind === 'table' && p.name === name && actions.includes(p.action.replace('dynamodb:', ''));
const secret =
  (name: string): Rule =>
  (p) =>
    p.kind === 'controlSecret' && p.name === name && p.action === 'secretsmanager:GetSecretValue';
/** Waking, hibernating, restarting: asking λ compute, the one holder of ECS power. */
const wake: Rule = (p) => p.kind === 'invoke' && p.name === 'compute';
const any =
  (...rules: Rule[]): Rule =>
  (p) =>
    rules.some((r) => r(p));

async function expectOnly(principal: Principal, allowed: Rule): Promise<void> {
  await expectMatrix(principal, [
    ...universe().map(({ kind: _k, name: _n, agent: _a, ...c }) => ({
      ...c,
      expected: allowed({ kind: _k, name: _n, agent: _a, ...c }) ? ('Allowed' as const) : ('Denied' as const),
    })),
    ...otherFleetDenied(),
  ]);
}

describe('each control-plane function’s role', () => {
  const fn = (name: string) => {
    const f = fleet.stacks.controlPlane.functions.functions.get(name);
    if (!f) throw new Error(`no function ${name}`);
    return principalOf(`fn-${name}`, f.role!);
  };

  it('deploys the eight handlers, one role each', () => {
    expect([...fleet.stacks.controlPlane.functions.functions.keys()].sort()).toEqual([
      'compute',
      'cron-dispatch',
      'dashboard',
      'health',
      'hooks',
      'operator-alerts',
      'outbox',
      'telegram-webhook',
    ]);
  });

  it('operator-alerts reads the bot tokens and claims and counts alerts in the deliveries table — nothing else', async () => {
    await expectOnly(fn('operator-alerts'), any(secret('telegram'), table('deliveries', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem')));
  });

  it('compute sets agents’ desired counts, reads their records and parks failed requests — nothing else, and asks no one', async () => {
    await expectOnly(
      fn('compute'),
      any(
        (p) => p.kind === 'service' && p.action === 'ecs:UpdateService',
        table('registry', 'GetItem'),
        (p) => p.kind === 'computeDlq' && p.action === 'sqs:SendMessage',
      ),
    );
  });

  it('only compute may call ecs:UpdateService: no other function, role of the scheduler or of any agent', async () => {
    const cp = fleet.stacks.controlPlane;
    const principals = [
      ...[...cp.functions.functions.keys()].map((name) => fn(name)),
      principalOf('scheduler', cp.cronInvoker.role),
      principalOf('task-execution', cp.taskExecutionRole),
      ...AGENTS.flatMap((id) => [
        principalOf(`task-${id}`, fleet.stacks.agents.get(id)!.runtime.taskRole),
        principalOf(`tasks-${id}`, fleet.stacks.agents.get(id)!.archive.taskRole),
      ]),
    ];
    const holders: string[] = [];
    for (const p of principals) {
      const decisions = await Promise.all(
        AGENTS.map((id) => decide(p, 'ecs:UpdateService', `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${id}`)),
      );
      if (decisions.some((d) => d === 'Allowed')) holders.push(p.label);
    }
    expect(holders).toEqual(['fn-compute']);
  });

  it('telegram-webhook reads the bot tokens, admits, pairs, records sessions and origins, finds whose message a reaction is on, stores attachments, queues into and wakes any agent, reads what /status says — nothing else', async () => {
    await expectOnly(
      fn('telegram-webhook'),
      any(
        secret('telegram'),
        sqs('inbox', 'SendMessage', 'GetQueueUrl', 'GetQueueAttributes'),
        wake,
        table('dedupe', 'GetItem', 'PutItem'),
        table('sessions', 'UpdateItem', 'GetItem'),
        // GetItem (#31): the bot's sent messages (`sent:` items), to find whose message a user reacted to.
        table('origins', 'UpdateItem', 'GetItem'),
        table('registry', 'GetItem', 'PutItem', 'UpdateItem'),
        // Budgets (#31): a metered agent's spend, for admission and /status.
        table('spend', 'GetItem'),
        // Attachments into any agent's in/ prefix (#16), never read, never out/.
        (p) => p.kind === 'media' && p.name === 'in' && p.action === 's3:PutObject',
      ),
    );
  });

  it('hooks reads the hooks token, admits, records sessions and origins, queues into and wakes any agent — nothing else', async () => {
    await expectOnly(
      fn('hooks'),
      any(
        secret('hooks'),
        sqs('inbox', 'SendMessage', 'GetQueueUrl'),
        wake,
        table('dedupe', 'GetItem', 'PutItem'),
        table('sessions', 'GetItem', 'UpdateItem'),
        table('origins', 'UpdateItem'),
        table('registry', 'UpdateItem'),
        table('spend', 'GetItem'),
      ),
    );
  });

  it('outbox consumes every outbox, parks rejects, delivers replies and agents’ files and relays by origin, wakes agents, and keeps only agents’ own schedules — nothing else', async () => {
    await expectOnly(
      fn('outbox'),
      any(
        secret('telegram'),
        sqs('outbox', 'ReceiveMessage', 'DeleteMessage', 'ChangeMessageVisibility', 'GetQueueAttributes', 'GetQueueUrl'),
        sqs('outboxDlq', 'SendMessage', 'GetQueueUrl'),
        sqs('inbox', 'SendMessage', 'GetQueueUrl'),
        wake,
        table('sessions', 'GetItem', 'UpdateItem'),
        table('deliveries', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'),
        table('origins', 'GetItem', 'UpdateItem'),
        table('registry', 'UpdateItem'),
        // Budgets (#31): usage reports counted (a claim and the month's sums), alarms marked, budgets read.
        table('spend', 'GetItem', 'PutItem', 'UpdateItem'),
        (p) => p.kind === 'schedule' && p.name === 'agent' && p.action !== 'scheduler:GetSchedule',
        (p) => p.kind === 'listSchedules',
        (p) => p.kind === 'passRole' && p.name === 'scheduler' && p.context?.['iam:PassedToService'] === 'scheduler.amazonaws.com',
        // Files agents send, from any agent's out/ prefix (#16; the outbox checks the key is the sender's), never written, never in/.
        (p) => p.kind === 'media' && p.name === 'out' && p.action === 's3:GetObject',
      ),
    );
  });

  it('cron-dispatch queues into, records sessions and origins for and wakes any agent — nothing else', async () => {
    await expectOnly(
      fn('cron-dispatch'),
      any(
        sqs('inbox', 'SendMessage', 'GetQueueUrl'),
        wake,
        table('sessions', 'GetItem', 'UpdateItem'),
        table('origins', 'UpdateItem'),
        table('registry', 'UpdateItem'),
        // Budgets (#31): a metered agent's jobs and heartbeats pause over its cap.
        table('spend', 'GetItem'),
      ),
    );
  });

  it('health reads inbound depths and agent records, and wakes, hibernates or restarts agents — nothing else', async () => {
    await expectOnly(fn('health'), any(sqs('inbox', 'GetQueueAttributes', 'GetQueueUrl'), wake, table('registry', 'GetItem', 'UpdateItem')));
  });

  it('dashboard reads its token, queue figures, sessions, agents and metrics, acts on agents and approves pairings — nothing else', async () => {
    await expectOnly(
      fn('dashboard'),
      any(
        secret('dashboard'),
        sqs('inbox', 'GetQueueAttributes', 'GetQueueUrl'),
        sqs('inboxDlq', 'GetQueueAttributes', 'GetQueueUrl'),
        sqs('outboxDlq', 'GetQueueAttributes', 'GetQueueUrl'),
        wake,
        table('sessions', 'Scan'),
        table('registry', 'GetItem', 'BatchGetItem', 'Scan', 'UpdateItem', 'DeleteItem'),
        table('spend', 'GetItem'),
      ),
    );
  });

  it('no control-plane function may read any agent’s secret or touch its workspace, on EFS or in staging', async () => {
    for (const name of fleet.stacks.controlPlane.functions.functions.keys()) {
      const checks: Check[] = AGENTS.flatMap((id) => [
        { action: 'secretsmanager:GetSecretValue', resource: res[id]!.secret, expected: 'Denied' as const },
        ...EFS_ACTIONS.map((action) => nfs(action, res[id]!.accessPoint, 'Denied')),
        ...EFS_ACTIONS.map((action) => nfs(action, res[id]!.archiveAccessPoint, 'Denied')),
      ]);
      await expectMatrix(fn(name), [...checks, ...EFS_ACTIONS.map((action) => nfs(action, undefined, 'Denied')), ...stagingChecks(() => false)]);
    }
  });
});

describe('each agent’s one-off tasks’ role (the workspace archive and the workspace sync)', () => {
  it.each(AGENTS)('%s mounts and writes its own workspace and its own archive, through their access points, and reaches nothing else', async (me) => {
    const stack = fleet.stacks.agents.get(me)!;
    const role = principalOf(`archive-${me}`, stack.archive.taskRole);
    const checks: Check[] = [];
    for (const other of AGENTS) {
      const r = res[other]!;
      for (const action of ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite']) {
        checks.push(nfs(action, r.accessPoint, other === me ? 'Allowed' : 'Denied'), nfs(action, r.archiveAccessPoint, other === me ? 'Allowed' : 'Denied'));
      }
      checks.push(
        nfs('elasticfilesystem:ClientRootAccess', r.accessPoint, 'Denied'),
        nfs('elasticfilesystem:ClientRootAccess', r.archiveAccessPoint, 'Denied'),
      );
    }
    for (const action of EFS_ACTIONS) checks.push(nfs(action, undefined, 'Denied'));
    // Its own staging prefix (the workspace sync's copies), and nothing beside it: not another
    // agent's, not a longer id that starts like its own, not the bucket, not over plain HTTP.
    checks.push(...stagingChecks((agent) => agent === me));
    checks.push(
      s3Check('s3:GetObject', `${me}-2/objects/0123abcd`, 'Denied'),
      s3Check('s3:PutObject', `${me}`, 'Denied'),
      s3Check('s3:ListBucket', undefined, 'Denied'),
      s3Check('s3:ListBucket', undefined, 'Denied', { 's3:prefix': '' }),
      s3Check('s3:ListBucket', undefined, 'Denied', { 's3:prefix': `${me}-2/` }),
      s3Check('s3:PutBucketPolicy', undefined, 'Denied'),
      s3Check('s3:GetObject', `${me}/objects/0123abcd`, 'Denied', { 'aws:SecureTransport': 'false' }),
      { action: 's3:GetObject', resource: `arn:aws:s3:::another-fleets-bucket/${me}/objects/0123abcd`, expected: 'Denied' },
    );
    // No media, no fleet skills: those are the runtime's.
    for (const dir of MEDIA_DIRS) checks.push(mediaCheck('s3:GetObject', `demo/agents/${me}/${dir}/x/photo.jpg`, 'Denied'));
    await expectMatrix(role, checks);
    // Not one probe of the universe: no secret (its own agent's included), queue, table, service or schedule.
    await expectOnly(role, () => false);
  });

  it('may be assumed only by ECS tasks, and the archive task runs with it, not with the runtime’s role', () => {
    const stack = fleet.stacks.agents.get('fran')!;
    const role = resolver.resource(stack.stackName, logicalId(stack.archive.taskRole));
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' } },
    ]);
    const task = resolver.resource(stack.stackName, logicalId(stack.archive.taskDefinition));
    expect(task.Properties.TaskRoleArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.archive.taskRole), 'Arn'] });
  });
});

describe('the fleet’s one task execution role', () => {
  it('reaches nothing of any agent or of the control plane: it pulls the image and writes agents’ logs, and is no task’s credentials', async () => {
    const role = principalOf('task-execution', fleet.stacks.controlPlane.taskExecutionRole);
    const checks: Check[] = [];
    for (const id of AGENTS) {
      checks.push({
        action: 'logs:PutLogEvents',
        resource: `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/clawfleet/demo/agents/${id}:log-stream:runtime/x`,
        expected: 'Allowed',
      });
      for (const action of EFS_ACTIONS) checks.push(nfs(action, res[id]!.accessPoint, 'Denied'), nfs(action, res[id]!.archiveAccessPoint, 'Denied'));
      for (const dir of MEDIA_DIRS) checks.push(mediaCheck('s3:GetObject', `demo/agents/${id}/${dir}/x/photo.jpg`, 'Denied'));
    }
    checks.push(
      { action: 'logs:PutLogEvents', resource: `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/aws/lambda/demo-outbox:log-stream:x`, expected: 'Denied' },
      { action: 'logs:PutLogEvents', resource: `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/clawfleet/prod/agents/jerry:log-stream:x`, expected: 'Denied' },
      {
        action: 'ecr:BatchGetImage',
        resource: `arn:aws:ecr:us-east-1:${ACCOUNT}:repository/cdk-hnb659fds-container-assets-${ACCOUNT}-us-east-1`,
        expected: 'Allowed',
      },
      { action: 'ecr:BatchGetImage', resource: `arn:aws:ecr:us-east-1:${ACCOUNT}:repository/someone-elses-images`, expected: 'Denied' },
      {
        action: 'ecr:PutImage',
        resource: `arn:aws:ecr:us-east-1:${ACCOUNT}:repository/cdk-hnb659fds-container-assets-${ACCOUNT}-us-east-1`,
        expected: 'Denied',
      },
      ...stagingChecks(() => false),
    );
    await expectMatrix(role, checks);
    await expectOnly(role, () => false);
  });

  it('may be assumed only by ECS tasks of this account, and every agent task names it as its execution role', () => {
    const cp = fleet.stacks.controlPlane;
    const role = resolver.resource(cp.stackName, logicalId(cp.taskExecutionRole));
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'ecs-tasks.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    const arn = resolveIn(cp, cp.resolve(cp.taskExecutionRole.roleArn));
    for (const s of fleet.stacks.agents.values()) {
      const tasks = Object.values<{ Type: string; Properties: Record<string, any> }>(fleet.templates.get(s.stackName)!.Resources).filter(
        (r) => r.Type === 'AWS::ECS::TaskDefinition',
      );
      expect(tasks.map((t) => resolveIn(s, t.Properties.ExecutionRoleArn))).toEqual([arn, arn, arn]);
    }
  });
});

describe('the workspaces file system', () => {
  it('lets a principal without an EFS grant of its own do nothing through a mount target, on any directory', async () => {
    // What the file-system policy alone allows: any role in the account, or a client that
    // mounts without IAM, gets this and no more. (CDK's default policy allowed ClientWrite
    // and ClientRootAccess here to every principal.)
    const stranger: Principal = { label: 'stranger', policies: [] };
    await expectMatrix(stranger, [
      ...AGENTS.flatMap((id) => EFS_ACTIONS.map((a) => nfs(a, res[id]!.accessPoint, 'Denied'))),
      ...EFS_ACTIONS.map((a) => nfs(a, undefined, 'Denied')),
    ]);
  });

  it('refuses clients without TLS, whatever their identity policy allows', async () => {
    const fran = principalOf('task-fran', fleet.stacks.agents.get('fran')!.runtime.taskRole);
    const plain = {
      ...nfs('elasticfilesystem:ClientMount', res.fran!.accessPoint, 'Denied'),
      context: { ...nfs('', res.fran!.accessPoint, 'Denied').context, 'aws:SecureTransport': 'false' },
    };
    await expectMatrix(fran, [nfs('elasticfilesystem:ClientMount', res.fran!.accessPoint, 'Allowed'), plain]);
  });
});

describe('the scheduler’s role', () => {
  it('invokes cron-dispatch and parks failed invocations in the schedules DLQ — nothing else', async () => {
    const role = principalOf('scheduler', fleet.stacks.controlPlane.cronInvoker.role);
    await expectOnly(
      role,
      any(
        (p) => p.kind === 'invoke' && p.name === 'cron-dispatch',
        (p) => p.kind === 'schedulesDlq' && p.action === 'sqs:SendMessage',
      ),
    );
  });

  it('may be assumed only by EventBridge Scheduler for this account', () => {
    const cp = fleet.stacks.controlPlane;
    const role = resolver.resource(cp.stackName, logicalId(cp.cronInvoker.role));
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
  });
});

describe('the workspace staging bucket', () => {
  it('lets no principal without a grant of its own reach any agent’s prefix (the bucket policy alone)', async () => {
    await expectMatrix({ label: 'stranger', policies: [] }, [...stagingChecks(() => false), s3Check('s3:ListBucket', undefined, 'Denied')]);
  });

  it('is reached by no execution role, nor the scheduler’s', async () => {
    const principals = [
      principalOf('scheduler', fleet.stacks.controlPlane.cronInvoker.role),
      principalOf('task-execution', fleet.stacks.controlPlane.taskExecutionRole),
    ];
    for (const p of principals)
      await expectMatrix(
        p,
        stagingChecks(() => false),
      );
  });
});

describe('the one-off workspace task', () => {
  it.each(AGENTS)('%s’s runs with its agent’s one-off role and own access point; only the runtime and the one-off tasks mount its directory', (me) => {
    const stacks = [...fleet.stacks.agents.values()];
    const mine = fleet.stacks.agents.get(me)!;
    const task = resolver.resource(mine.stackName, logicalId(mine.workspaceTask.taskDefinition));
    const roleArn = resolveIn(mine, Stack.of(mine).resolve(mine.runtime.taskRole.roleArn));
    const oneOffRoleArn = resolveIn(mine, Stack.of(mine).resolve(mine.archive.taskRole.roleArn));
    expect(task.Properties.Family).toBe(`demo-agent-${me}-workspace`);
    expect(resolveIn(mine, task.Properties.TaskRoleArn)).toBe(oneOffRoleArn);
    const volume = resolveIn(mine, task.Properties.Volumes[0].EFSVolumeConfiguration);
    expect(volume).toMatchObject({
      TransitEncryption: 'ENABLED',
      AuthorizationConfig: { IAM: 'ENABLED', AccessPointId: resolveIn(mine, Stack.of(mine).resolve(mine.runtime.accessPoint.accessPointId)) },
    });
    const [container] = task.Properties.ContainerDefinitions;
    expect(container).toMatchObject({
      Name: 'WorkspaceSync',
      User: '1000',
      ReadonlyRootFilesystem: true,
      Command: ['node', '--enable-source-maps', '/app/dist/workspace-sync.mjs'],
      LinuxParameters: { Capabilities: { Drop: ['ALL'] } },
    });
    expect(Object.fromEntries(container.Environment.map((e: { Name: string; Value: unknown }) => [e.Name, resolveIn(mine, e.Value)]))).toMatchObject({
      CLAWFLEET_AGENT_ID: me,
      CLAWFLEET_STAGING_PREFIX: `${me}/`,
      CLAWFLEET_STAGING_BUCKET: staging.replace('arn:aws:s3:::', ''),
    });
    // Every task definition in the app that mounts this access point runs as this agent's task role.
    const accessPoint = resolveIn(mine, Stack.of(mine).resolve(mine.runtime.accessPoint.accessPointId));
    const mounting = stacks.flatMap((s) =>
      Object.entries<{ Type: string; Properties: Record<string, any> }>(fleet.templates.get(s.stackName)!.Resources)
        .filter(([, r]) => r.Type === 'AWS::ECS::TaskDefinition')
        .filter(([, r]) =>
          (r.Properties.Volumes ?? []).some((v: any) => resolveIn(s, v.EFSVolumeConfiguration?.AuthorizationConfig?.AccessPointId) === accessPoint),
        )
        .map(([, r]) => resolveIn(s, r.Properties.TaskRoleArn)),
    );
    // The runtime, as the agent's own role; the archive task (`clawfleet agents remove`) and
    // the workspace task, as the one-off role, which reaches only this agent's directory, its
    // archive and its staging prefix (checked in its own describe).
    expect(mounting.sort()).toEqual([roleArn, oneOffRoleArn, oneOffRoleArn].sort());
  });
});

describe('the bot tokens of a fleet past 400 bots', () => {
  it('are in three secrets, every one read by the functions that use tokens and by no agent', async () => {
    // Two agents, 801 bots (unbound accounts route to the default agent): three telegram secrets.
    const accounts = Object.fromEntries(Array.from({ length: 801 }, (_, i) => [`bot${i}`, { botTokenSecret: `BOT${i}_TOKEN` }]));
    const many = synthFleet(
      {
        ...EXAMPLE_CONFIG,
        agents: { ...EXAMPLE_CONFIG.agents, list: EXAMPLE_CONFIG.agents.list.slice(0, 2) },
        bindings: [],
        channels: { telegram: { accounts } },
        operator: { telegram: { accountId: 'bot0', chatId: 5001 } },
      },
      {},
      { nag: false },
    );
    const r = new TemplateResolver(many.templates);
    const cp = many.stacks.controlPlane;
    const arns = cp.telegramSecrets.map((s) => r.resolve(cp.stackName, cp.resolve(s.secretArn)) as string);
    expect(cp.telegramSecrets.map((s) => s.secretName)).toEqual([
      'clawfleet/demo/control/telegram',
      'clawfleet/demo/control/telegram-1',
      'clawfleet/demo/control/telegram-2',
    ]);
    const principal = (label: string, role: IConstruct): Principal => ({ label, policies: r.rolePolicies(Stack.of(role).stackName, logicalId(role)) });
    const readers = ['telegram-webhook', 'outbox', 'operator-alerts'];
    for (const [name, fn] of cp.functions.functions) {
      await expectMatrix(
        principal(`fn-${name}`, fn.role!),
        arns.map((resource) => ({ action: 'secretsmanager:GetSecretValue', resource, expected: readers.includes(name) ? 'Allowed' : 'Denied' })),
      );
    }
    for (const s of many.stacks.agents.values()) {
      await expectMatrix(
        principal(`task-${s.node.id}`, s.runtime.taskRole),
        arns.map((resource) => ({ action: 'secretsmanager:GetSecretValue', resource, expected: 'Denied' as const })),
      );
    }
  });
});
