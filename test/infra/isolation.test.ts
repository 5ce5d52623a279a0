// The isolation matrix: every principal's synthesized IAM policies, evaluated offline
// (@cloud-copilot/iam-simulate) against every agent's secret, queues, workspace and
// models and every control-plane table and secret. Allowed exactly where the design says,
// denied everywhere else.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { ACCOUNT, TemplateResolver } from './resolve-template.ts';
import { EXAMPLE_CONFIG, synthFleet, type SynthedFleet } from './synth-fleet.ts';

/** The example fleet, with two agents on Bedrock (one through an inference profile). */
const CONFIG: FleetConfigInput = {
  ...EXAMPLE_CONFIG,
  models: { providers: { ...EXAMPLE_CONFIG.models.providers, bedrock: { api: 'bedrock-converse' } } },
  agents: {
    ...EXAMPLE_CONFIG.agents,
    list: EXAMPLE_CONFIG.agents.list.map((a) =>
      a.id === 'grif'
        ? { ...a, model: 'bedrock/anthropic.claude-3-haiku-20240307-v1:0' }
        : a.id === 'ray'
          ? { ...a, model: { primary: 'bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0', fallbacks: ['openai/gpt-4.1-mini'] } }
          : a,
    ),
  },
};
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
let res: Record<string, { secret: string; inbox: string; inboxDlq: string; outbox: string; outboxDlq: string; accessPoint: string }>;
let tables: Record<string, string>;
let telegramSecret: string;
let fileSystem: string;
let fileSystemPolicy: unknown;

const logicalId = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const resolveIn = (c: IConstruct, v: unknown) => resolver.resolve(Stack.of(c).stackName, v);

function principalOf(label: string, role: IConstruct): Principal {
  return { label, policies: resolver.rolePolicies(Stack.of(role).stackName, logicalId(role)) };
}

async function decide(p: Principal, action: string, resource: string, extra: { context?: Record<string, string>; resourcePolicy?: unknown } = {}): Promise<Decision> {
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
    if (got !== c.expected) wrong.push(`${p.label}: ${c.action} on ${c.resource}${c.context ? ` ${JSON.stringify(c.context)}` : ''}: expected ${c.expected}, got ${got}`);
  }
  expect(wrong).toEqual([]);
  expect(checks.length).toBeGreaterThan(0);
}

const SQS_ACTIONS = ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:PurgeQueue'];
const TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Scan'];

beforeAll(() => {
  fleet = synthFleet(CONFIG);
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
        },
      ];
    }),
  );
  tables = Object.fromEntries(Object.entries(cp.tables.tables).map(([k, t]) => [k, resolveIn(cp, cp.resolve(t.tableArn))]));
  telegramSecret = resolveIn(cp, cp.resolve(cp.telegramSecret!.secretArn));
  fileSystem = resolveIn(cp, cp.resolve(cp.network.fileSystem.fileSystemArn));
  fileSystemPolicy = resolver.resolve(cp.stackName, resolver.resource(cp.stackName, logicalId(cp.network.fileSystem)).Properties.FileSystemPolicy);
});

describe('each agent’s task role', () => {
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
      for (const action of ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite']) {
        checks.push({ action, resource: fileSystem, context: { 'elasticfilesystem:AccessPointArn': r.accessPoint }, resourcePolicy: fileSystemPolicy, expected: mine ? 'Allowed' : 'Denied' });
      }
      if (MODELS[other]) checks.push({ action: 'bedrock:InvokeModel', resource: MODELS[other]!, expected: mine ? 'Allowed' : 'Denied' });
    }
    checks.push({ action: 'elasticfilesystem:ClientRootAccess', resource: fileSystem, context: { 'elasticfilesystem:AccessPointArn': res[me]!.accessPoint }, resourcePolicy: fileSystemPolicy, expected: 'Denied' });
    // Mounting the file system's root, outside any access point.
    checks.push({ action: 'elasticfilesystem:ClientMount', resource: fileSystem, resourcePolicy: fileSystemPolicy, expected: 'Denied' });
    checks.push({ action: 'secretsmanager:GetSecretValue', resource: telegramSecret, expected: 'Denied' });
    for (const other of AGENTS) checks.push(...serviceChecks(other, 'Denied').slice(0, 1).map((c) => ({ ...c, expected: 'Denied' as const })));
    for (const table of Object.values(tables)) for (const action of TABLE_ACTIONS) checks.push({ action, resource: table, expected: 'Denied' });
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

/** ECS UpdateService on an agent's service; never on another cluster's or a non-agent service. */
const serviceChecks = (agentId: string, expected: Decision): Check[] => [
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${agentId}`, expected },
  { action: 'ecs:DeleteService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/agent-${agentId}`, expected: 'Denied' },
];

/** Another fleet in the same account: its queues, services and secrets. */
const otherFleetDenied = (): Check[] => [
  { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:prod-agent-jerry.fifo`, expected: 'Denied' },
  { action: 'sqs:ReceiveMessage', resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:prod-outbox-jerry.fifo`, expected: 'Denied' },
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-prod/agent-jerry`, expected: 'Denied' },
  { action: 'ecs:UpdateService', resource: `arn:aws:ecs:us-east-1:${ACCOUNT}:service/clawfleet-demo/not-an-agent`, expected: 'Denied' },
  { action: 'secretsmanager:GetSecretValue', resource: `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:clawfleet/prod/control/telegram-AbC123`, expected: 'Denied' },
];

describe('each control-plane function’s role', () => {
  const fn = (name: string) => {
    const f = fleet.stacks.controlPlane.functions.functions.get(name);
    if (!f) throw new Error(`no function ${name}`);
    return principalOf(`fn-${name}`, f.role!);
  };

  it('telegram-webhook reads the bot tokens, admits and records, queues into and wakes any agent — nothing else', async () => {
    const checks: Check[] = [{ action: 'secretsmanager:GetSecretValue', resource: telegramSecret, expected: 'Allowed' }, ...otherFleetDenied()];
    for (const id of AGENTS) {
      const r = res[id]!;
      checks.push({ action: 'secretsmanager:GetSecretValue', resource: r.secret, expected: 'Denied' });
      for (const action of SQS_ACTIONS) {
        checks.push({ action, resource: r.inbox, expected: ['sqs:SendMessage', 'sqs:GetQueueAttributes'].includes(action) ? 'Allowed' : 'Denied' });
        for (const q of [r.outbox, r.inboxDlq, r.outboxDlq]) checks.push({ action, resource: q, expected: 'Denied' });
      }
      checks.push({ action: 'sqs:GetQueueUrl', resource: r.inbox, expected: 'Allowed' }, ...serviceChecks(id, 'Allowed'));
    }
    for (const [table, arn] of Object.entries(tables)) {
      for (const action of TABLE_ACTIONS) {
        const allowed =
          (table === 'dedupe' && ['dynamodb:GetItem', 'dynamodb:PutItem'].includes(action)) ||
          (table === 'sessions' && action === 'dynamodb:PutItem') ||
          (table === 'registry' && action !== 'dynamodb:Scan');
        checks.push({ action, resource: arn, expected: allowed ? 'Allowed' : 'Denied' });
      }
    }
    await expectMatrix(fn('telegram-webhook'), checks);
  });

  it('health reads inbound depths, keeps the registry and wakes, hibernates or restarts agents — nothing else', async () => {
    const checks: Check[] = [{ action: 'secretsmanager:GetSecretValue', resource: telegramSecret, expected: 'Denied' }, ...otherFleetDenied()];
    for (const id of AGENTS) {
      const r = res[id]!;
      checks.push({ action: 'secretsmanager:GetSecretValue', resource: r.secret, expected: 'Denied' }, ...serviceChecks(id, 'Allowed'));
      for (const action of SQS_ACTIONS) {
        checks.push({ action, resource: r.inbox, expected: action === 'sqs:GetQueueAttributes' ? 'Allowed' : 'Denied' });
        for (const q of [r.outbox, r.inboxDlq, r.outboxDlq]) checks.push({ action, resource: q, expected: 'Denied' });
      }
    }
    for (const [table, arn] of Object.entries(tables)) {
      for (const action of TABLE_ACTIONS) checks.push({ action, resource: arn, expected: table === 'registry' && action !== 'dynamodb:Scan' ? 'Allowed' : 'Denied' });
    }
    await expectMatrix(fn('health'), checks);
  });

  it('outbox consumes every agent’s outbox, parks rejects in outbox DLQs, delivers, and relays to and wakes agents — nothing else', async () => {
    const checks: Check[] = [{ action: 'secretsmanager:GetSecretValue', resource: telegramSecret, expected: 'Allowed' }, ...otherFleetDenied()];
    const consume = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'];
    for (const id of AGENTS) {
      const r = res[id]!;
      checks.push({ action: 'secretsmanager:GetSecretValue', resource: r.secret, expected: 'Denied' });
      for (const action of SQS_ACTIONS) {
        checks.push({ action, resource: r.outbox, expected: consume.includes(action) ? 'Allowed' : 'Denied' });
        checks.push({ action, resource: r.outboxDlq, expected: action === 'sqs:SendMessage' ? 'Allowed' : 'Denied' });
        // agent_send is relayed into the target's inbound queue.
        checks.push({ action, resource: r.inbox, expected: ['sqs:SendMessage', 'sqs:GetQueueAttributes'].includes(action) ? 'Allowed' : 'Denied' });
        checks.push({ action, resource: r.inboxDlq, expected: 'Denied' });
      }
      checks.push(...serviceChecks(id, 'Allowed'));
    }
    for (const [table, arn] of Object.entries(tables)) {
      for (const action of TABLE_ACTIONS) {
        const allowed =
          (table === 'sessions' && action === 'dynamodb:GetItem') || (['deliveries', 'registry'].includes(table) && action !== 'dynamodb:Scan');
        checks.push({ action, resource: arn, expected: allowed ? 'Allowed' : 'Denied' });
      }
    }
    await expectMatrix(fn('outbox'), checks);
  });

  it('no control-plane function may read any agent’s secret or touch its workspace', async () => {
    for (const name of fleet.stacks.controlPlane.functions.functions.keys()) {
      const checks: Check[] = AGENTS.flatMap((id) => [
        { action: 'secretsmanager:GetSecretValue', resource: res[id]!.secret, expected: 'Denied' as const },
        { action: 'elasticfilesystem:ClientMount', resource: fileSystem, context: { 'elasticfilesystem:AccessPointArn': res[id]!.accessPoint }, resourcePolicy: fileSystemPolicy, expected: 'Denied' as const },
      ]);
      await expectMatrix(fn(name), checks);
    }
  });
});
