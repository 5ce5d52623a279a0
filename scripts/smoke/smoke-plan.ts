// What `npm run smoke:aws` makes, what one run costs, and what it takes down again — pure, so
// it is printed (and tested) before anything touches an account.
import { randomBytes } from 'node:crypto';
import { RETAINED_TABLES, retainedResources } from '../../infra/retained-resources.ts';
import { FARGATE_PRICES, HOURS_PER_MONTH, PRICES, PRICES_DATE, PRICES_REGION } from '../../cli/aws-prices.ts';
import {
  agentArchivePath,
  agentLogGroupName,
  agentStackName,
  agentWorkspacePath,
  controlPlaneStackName,
  dashboardSecretName,
  functionLogGroupName,
  scheduleGroupName,
  sharedParameterNames,
  tableNames,
  telegramSecretName,
} from '../../shared/config/names.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';

/** The one agent of the smoke fleet. */
export const SMOKE_AGENT = 'probe';
/** The Telegram account the signed update comes to; its bot token is made up (no Bot API is ever called). */
export const SMOKE_ACCOUNT = 'smoke';
/** The user the update comes from (allowed by the config). */
export const SMOKE_USER = 4242;
/** A cheap Bedrock model that needs no key, only model access in the account. */
export const DEFAULT_SMOKE_MODEL = 'bedrock/amazon.nova-micro-v1:0';

/** `smoke-<8 hex digits>`: unique per run, and a valid fleet name (it can hold no "agent"/"outbox" word). */
export function smokeFleetName(random: () => string = () => randomBytes(4).toString('hex')): string {
  return `smoke-${random()
    .replace(/[^0-9a-f]/g, '')
    .slice(0, 8)
    .padEnd(8, '0')}`;
}

/** The one-agent fleet: the probe, asleep until the update wakes it, answering with `model`. */
export function smokeConfig(fleet: string, model: string): FleetConfigInput {
  const provider = model.slice(0, model.indexOf('/'));
  const providers: FleetConfigInput['models']['providers'] =
    provider === 'bedrock'
      ? { bedrock: { api: 'bedrock-converse' } }
      : provider === 'anthropic'
        ? { anthropic: { api: 'anthropic-messages', apiKeySecret: 'ANTHROPIC_API_KEY' } }
        : { [provider]: { api: 'openai-completions', apiKeySecret: `${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY` } };
  return {
    fleet,
    agents: {
      defaults: { model, runtime: { cpus: 0.25, memoryMb: 512, idleTimeoutMinutes: 10 } },
      list: [{ id: SMOKE_AGENT, name: 'Smoke probe', default: true }],
    },
    models: { providers },
    bindings: [{ agentId: SMOKE_AGENT, match: { channel: 'telegram', accountId: SMOKE_ACCOUNT } }],
    // Replies are read from the agent's outbox, never sent: an address that cannot resolve, should anything try.
    channels: {
      telegram: {
        apiRoot: 'https://bot-api.smoke.invalid',
        allowFrom: [String(SMOKE_USER)],
        accounts: { [SMOKE_ACCOUNT]: { botTokenSecret: 'SMOKE_BOT_TOKEN' } },
      },
    },
  };
}

/** One line per thing a run makes that outlives a stack deletion, or that it deletes itself, in teardown order. */
export interface TeardownItem {
  what: string;
  how: string;
  /** The command an operator runs if the smoke could not (printed on failure). */
  byHand: string;
}

export function teardownList(fleet: string): TeardownItem[] {
  const agentStack = agentStackName(fleet, SMOKE_AGENT);
  const cp = controlPlaneStackName(fleet);
  return [
    {
      what: `stack ${agentStack}`,
      how: 'DeleteStack, then wait: its queues, secret, service, task definitions, roles, access points, log group, alarms, event source mapping',
      byHand: `aws cloudformation delete-stack --stack-name ${agentStack}`,
    },
    {
      what: `stack ${cp}`,
      how: `termination protection off, DeleteStack, then wait: the expiring tables, functions and their log groups, secrets ${telegramSecretName(fleet)} and ${dashboardSecretName(fleet)}, schedule group ${scheduleGroupName(fleet)}, SSM parameters, VPC, cluster, alarms`,
      byHand: `aws cloudformation update-termination-protection --no-enable-termination-protection --stack-name ${cp} && aws cloudformation delete-stack --stack-name ${cp}`,
    },
    {
      what: `the tables the stack keeps (${RETAINED_TABLES.map((t) => tableNames(fleet)[t]).join(', ')}: RemovalPolicy RETAIN, deletion protection on)`,
      how: 'UpdateTable to turn deletion protection off, then DeleteTable, each',
      byHand: RETAINED_TABLES.map((t) => retainedResources(fleet).find((r) => r.name === tableNames(fleet)[t])!.remove).join(' && '),
    },
    {
      what: `the workspaces file system (RemovalPolicy RETAIN: kept by the stack deletion), with ${agentWorkspacePath(SMOKE_AGENT)} and ${agentArchivePath(SMOKE_AGENT)}`,
      how: `its id read from the control plane's stack resources right after the deploy (SSM ${sharedParameterNames(fleet).fileSystemId} holds it too, until the teardown); DeleteFileSystem once its mount targets are gone`,
      byHand: 'aws efs delete-file-system --file-system-id <fs-id printed above>',
    },
    {
      what: 'recovery points of that file system in aws/efs/automatic-backup-vault, if a daily backup ran meanwhile',
      how: 'ListRecoveryPointsByResource, DeleteRecoveryPoint each',
      byHand: 'aws backup list-recovery-points-by-resource --resource-arn <file system ARN>; aws backup delete-recovery-point …',
    },
    {
      what: `log groups left behind (${agentLogGroupName(fleet, SMOKE_AGENT)}, ${functionLogGroupName(fleet, '*')})`,
      how: 'DeleteLogGroup for any the stacks did not take (a function that logged after its group was deleted makes it again)',
      byHand: `aws logs describe-log-groups --log-group-name-prefix /aws/lambda/${fleet}-`,
    },
  ];
}

/** What is kept on purpose: made by CDK for every app in the account, not by this run. */
export const KEPT = [
  'the CDK bootstrap stack CDKToolkit (made once per account and region, shared by every CDK app; a run that had to make it says "bootstrapped" in step 1)',
  'the runtime image and function bundles pushed to the bootstrap bucket and repository (~150 MB, about $0.02 a month until you delete them)',
];

export interface CostLine {
  item: string;
  usd: number;
}

/** What a run of `minutes` costs at list prices (PRICES_DATE), us-east-1: cents, dominated by the always-there items billed by the hour. */
export function runCost(minutes: number, model: string): { lines: CostLine[]; total: number; note: string } {
  const hours = minutes / 60;
  const fargate = FARGATE_PRICES.arm64;
  const lines: CostLine[] = [
    { item: 'Fargate 0.25 vCPU / 0.5 GB arm64 while awake (at most the whole run)', usd: hours * (0.25 * fargate.vcpuHour + 0.5 * fargate.gbHour) },
    { item: 'its public IPv4 address', usd: hours * PRICES.publicIpv4Hour },
    { item: '3 secrets (the agent’s, telegram, dashboard), prorated', usd: (3 * PRICES.secretMonth * hours) / HOURS_PER_MONTH },
    { item: 'about 30 CloudWatch alarms, prorated ($0.10 a month each)', usd: (30 * 0.1 * hours) / HOURS_PER_MONTH },
    { item: 'Lambda, SQS, DynamoDB, Scheduler, EFS, logs (within free tiers or fractions of a cent)', usd: 0.005 },
    { item: model.startsWith('bedrock/') ? `one short turn on ${model.slice(8)}` : `one short turn on ${model} (billed by its provider)`, usd: 0.001 },
  ];
  const total = lines.reduce((a, l) => a + l.usd, 0);
  return {
    lines,
    total,
    note: `${PRICES_REGION} list prices as of ${PRICES_DATE} (cli/aws-prices.ts); NAT gateways: none. A run usually takes ${minutes} minutes; Docker's image build on your machine is free.`,
  };
}
