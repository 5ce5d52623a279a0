// Deterministic names that let the control plane, the runtimes and the CDK app find each
// other's resources without passing references around (DESIGN.md, "Stacks").
//
// IAM grants match an agent's queues by pattern (`<fleet>-agent-*.fifo`). A pattern stays
// inside its fleet only if no other fleet's names start with `<fleet>-agent-`, so a fleet
// name may not hold the words these names put after it (fleetNameProblem): the first
// `agent`/`outbox` word of a name then always ends its fleet, however agent ids are spelt.

/** The words that follow the fleet in per-agent names: queues, outboxes and stacks. */
const PER_AGENT_WORDS = ['agent', 'outbox'] as const;

/** Why `fleet` cannot name a fleet, or undefined when it can. */
export function fleetNameProblem(fleet: string): string | undefined {
  const word = fleet.split('-').find((w) => (PER_AGENT_WORDS as readonly string[]).includes(w));
  if (!word) return undefined;
  return (
    `must not contain the word "${word}" between hyphens: per-agent names (<fleet>-agent-<id>.fifo, <fleet>-outbox-<id>.fifo) ` +
    `would then match another fleet's IAM patterns (fleet "x" would reach fleet "x-agent-y"'s queues)`
  );
}

export const agentQueueName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}.fifo`;
export const agentDlqName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}-dlq.fifo`;
export const outboxQueueName = (fleet: string, agentId: string) => `${fleet}-outbox-${agentId}.fifo`;
export const outboxDlqName = (fleet: string, agentId: string) => `${fleet}-outbox-${agentId}-dlq.fifo`;

export const agentSecretName = (fleet: string, agentId: string) => `clawfleet/${fleet}/agents/${agentId}`;
/** A telegram secret of the fleet: shard 0 (every fleet's first, the only one up to 400 bots), or another (shared/secrets/telegram-secrets.ts says which holds whose token). */
export const telegramSecretName = (fleet: string, shard = 0) => `clawfleet/${fleet}/control/telegram${shard === 0 ? '' : `-${shard}`}`;
export const hooksSecretName = (fleet: string) => `clawfleet/${fleet}/control/hooks`;
export const dashboardSecretName = (fleet: string) => `clawfleet/${fleet}/control/dashboard`;

export const tableNames = (fleet: string) => ({
  /** Session key → owning agent and last channel target. */
  sessions: `${fleet}-sessions`,
  /** Inbound event keys already admitted (TTL). */
  dedupe: `${fleet}-dedupe`,
  /** Outbound delivery claims per envelope id (TTL). */
  deliveries: `${fleet}-deliveries`,
  /** Agents (state, heartbeat, activity), pairings and metrics, by key prefix. */
  registry: `${fleet}-registry`,
  /** Each inbound envelope's origin (whom its answer reaches; TTL) and the agent-to-agent rate counters. */
  origins: `${fleet}-origins`,
  /** Budgets (#31): the control plane's count of each agent's spend, and each runtime's own ledger (its items keyed `<agent>#…`). */
  spend: `${fleet}-spend`,
});

/**
 * IAM wildcard patterns over the names above (`*` is any run of characters), for grants
 * that must reach every agent of one fleet, present and future, and no other fleet's.
 */
export const namePatterns = (fleet: string) => ({
  /** Every agent's inbound queue, and (a caveat callers deny explicitly) its DLQ. */
  agentQueues: `${fleet}-agent-*.fifo`,
  agentDlqs: `${fleet}-agent-*-dlq.fifo`,
  /** Every agent's outbox, and (again) its DLQ. */
  outboxes: `${fleet}-outbox-*.fifo`,
  outboxDlqs: `${fleet}-outbox-*-dlq.fifo`,
  agentStacks: `${fleet}-agent-*`,
});

const AGENT_ID = /^[a-z][a-z0-9-]{0,23}$/;

/** The agent whose outbox a queue URL or ARN names: identity comes from the queue. */
export function agentIdFromOutbox(fleet: string, queueUrlOrArn: string): string | undefined {
  const name = queueUrlOrArn.split(/[/:]/).pop() ?? '';
  const prefix = `${fleet}-outbox-`;
  if (!name.startsWith(prefix) || !name.endsWith('.fifo') || name.endsWith('-dlq.fifo')) return undefined;
  const agentId = name.slice(prefix.length, -'.fifo'.length);
  // Only a name this fleet could have made: a valid id (fleet names never hold "outbox").
  return AGENT_ID.test(agentId) ? agentId : undefined;
}

// Names of the deployed stacks and of the fleet-wide AWS resources the CDK app creates.
export const controlPlaneStackName = (fleet: string) => `${fleet}-control-plane`;
export const agentStackName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}`;
export const clusterName = (fleet: string) => `clawfleet-${fleet}`;
/** An agent's ECS service inside the fleet's cluster. */
export const agentServiceName = (agentId: string) => `agent-${agentId}`;
export const scheduleGroupName = (fleet: string) => `clawfleet-${fleet}`;
/** The SNS topic every alarm of the fleet notifies (the operator's email, λ operator-alerts). */
export const alarmsTopicName = (fleet: string) => `${fleet}-alarms`;
/** A control-plane Lambda function, e.g. `demo-telegram-webhook`. */
export const functionName = (fleet: string, handler: string) => `${fleet}-${handler}`;
export const functionLogGroupName = (fleet: string, handler: string) => `/aws/lambda/${functionName(fleet, handler)}`;
export const agentLogGroupName = (fleet: string, agentId: string) => `/clawfleet/${fleet}/agents/${agentId}`;
/**
 * The one execution role of every agent task of the fleet (the runtimes and their one-off
 * tasks): ECS uses it to pull the image and ship the logs; no task's code ever holds it.
 */
export const taskExecutionRoleName = (fleet: string) => `clawfleet-${fleet}-task-execution`;
/** The task definition family of an agent's one-off workspace archive task (`clawfleet agents remove`). */
export const agentArchiveTaskFamily = (fleet: string, agentId: string) => `${agentStackName(fleet, agentId)}-archive`;
/** Where on the fleet's file system an agent's workspace lives, and where its archived copies are kept. */
export const agentWorkspacePath = (agentId: string) => `/agents/${agentId}`;
export const agentArchivePath = (agentId: string) => `/archive/${agentId}`;
/**
 * Cost-allocation tags on everything the stacks make (and on the tasks ECS runs from them):
 * the fleet, and the agent a resource belongs to — `control plane` for the shared rest, which
 * no agent id can be (ids have no space). Activate both in Billing to group costs by them.
 */
export const COST_TAGS = { fleet: 'clawfleet:fleet', agent: 'clawfleet:agent' } as const;
export const CONTROL_PLANE_COST_TAG = 'control plane';

/** The one-off task that moves an agent's workspace in and out of AWS (infra/constructs/agent-workspace-task.ts). */
export const agentWorkspaceTaskFamily = (fleet: string, agentId: string) => `${agentStackName(fleet, agentId)}-workspace`;
/** That task's one container: RunTask's overrides name it. */
export const WORKSPACE_SYNC_CONTAINER = 'WorkspaceSync';
/** An agent's prefix in the workspace staging bucket: only its task role may read or write under it. */
export const stagingPrefix = (agentId: string) => `${agentId}/`;

/**
 * SSM parameters through which the control plane tells the agent stacks where the shared
 * network, file system and scheduler role are. A weak reference: unlike a CloudFormation
 * export, nothing stops the control plane from replacing what a parameter names.
 */
export const sharedParameterNames = (fleet: string) => ({
  /** The public subnets runtimes run in (a StringList). */
  subnetIds: `/clawfleet/${fleet}/network/subnet-ids`,
  runtimeSecurityGroupId: `/clawfleet/${fleet}/network/runtime-security-group-id`,
  fileSystemId: `/clawfleet/${fleet}/workspaces/file-system-id`,
  /** The role EventBridge Scheduler invokes λ cron-dispatch with. */
  schedulerRoleArn: `/clawfleet/${fleet}/cron/scheduler-role-arn`,
  /** The bucket workspaces are staged in on their way in and out of EFS (one prefix per agent). */
  stagingBucket: `/clawfleet/${fleet}/workspaces/staging-bucket`,
  /** The bucket attachments and agents' files are kept in (#16): `<fleet>/agents/<id>/in|out/`. */
  mediaBucket: `/clawfleet/${fleet}/media/bucket`,
});
