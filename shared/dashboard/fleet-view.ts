// Builds the dashboard's read model from the ports: the registry for state, the queues for
// depths, the metrics store for the 24 h charts, sessions, pairings and the config. Every
// agent is read on its own, so one unreadable queue shows as such and hides nothing else.
import { resolveAgent } from '../config/resolve.ts';
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import type {
  AgentMetrics,
  AgentRecord,
  AgentRegistry,
  AgentState,
  Clock,
  PairingRecord,
  PairingStore,
  QueueStats,
  SessionRegistry,
  McpServerState,
  SpendCounts,
} from '../ports.ts';
import { spendView } from '../control/budget-gate.ts';
import { nextRun } from '../cron/next-run.ts';
import { DAY_MS, fillDay } from '../metrics/buckets.ts';
import type { AgentDetail, AgentSummary, CronJobView, FleetAction, FleetView, McpServerView, PairingView, SpendSummary, WorkspaceView } from './view.ts';

export interface DashboardSources {
  config: FleetConfig;
  where: 'aws' | 'local';
  registry: Pick<AgentRegistry, 'get'>;
  queues: QueueStats;
  sessions: Pick<SessionRegistry, 'list'>;
  pairings: Pick<PairingStore, 'listPending' | 'approve'>;
  metrics: AgentMetrics;
  clock: Clock;
  log: Logger;
  /** The agent's workspace size and last push/pull, where known. */
  workspace?(agentId: string): Promise<WorkspaceView | undefined>;
  /** Budgets (#31): the control plane's count of each agent's spend; read only for agents with a budget. */
  spend?: Pick<SpendCounts, 'totals'> | undefined;
  /** Local mode: what the process supervisor knows beyond the registry (offline model label, pid). */
  describe?(agentId: string): { model?: string | undefined; detail?: string | undefined };
  chat: boolean;
}

export const AGENT_STATES: AgentState[] = ['awake', 'waking', 'restarting', 'unhealthy', 'asleep', 'held'];
const SESSIONS_SHOWN = 50;
const TURNS_SHOWN = 25;

/** What an operator may do to an agent in each state. */
export function actionsFor(state: AgentState): FleetAction[] {
  // A held agent's workspace is being moved: it wakes when the transfer ends, not before.
  if (state === 'held') return [];
  return state === 'asleep' ? ['wake'] : ['restart', 'hibernate'];
}

async function summarize(agentId: string, src: DashboardSources, now: number): Promise<AgentSummary> {
  const resolved = resolveAgent(src.config, agentId);
  const [record, queue, activity, spend] = await Promise.all([
    src.registry.get(agentId),
    src.queues.stats(agentId).then(
      (q) => ({ q, error: undefined }),
      (err: unknown) => {
        src.log.warn('dashboard: queue figures unreadable', { agentId, ...errorFields(err) });
        return { q: undefined, error: err instanceof Error ? err.name : 'unreadable' };
      },
    ),
    src.metrics.activity(agentId, now - DAY_MS, now + 1),
    spendSummary(agentId, src, now),
  ]);
  const rec: Partial<AgentRecord> = record ?? {};
  const state = rec.state ?? 'asleep';
  const extra = src.describe?.(agentId) ?? {};
  return {
    id: agentId,
    name: resolved.name ?? agentId,
    state,
    stateSince: rec.stateChangedAt || undefined,
    model: extra.model ?? resolved.model?.primary,
    fallbacks: resolved.model?.fallbacks ?? [],
    profile: {
      cpus: resolved.runtime.cpus,
      memoryMb: resolved.runtime.memoryMb,
      alwaysOn: resolved.runtime.alwaysOn ?? false,
      idleTimeoutMinutes: resolved.runtime.alwaysOn ? undefined : resolved.runtime.idleTimeoutMinutes,
      spot: resolved.runtime.spot ?? false,
    },
    lastHeartbeatAt: rec.lastHeartbeatAt,
    lastActivityAt: rec.lastActivityAt,
    lastError: rec.lastError,
    warnings: rec.warnings ?? [],
    version: rec.version,
    restarts: rec.restarts,
    queue: queue.q,
    queueError: queue.error,
    activity: fillDay(now, activity),
    actions: actionsFor(state),
    detail: extra.detail,
    ...(spend ? { spend } : {}),
  };
}

/** A metered agent's spend (#31); an unreadable count shows as such and hides nothing else. */
async function spendSummary(agentId: string, src: DashboardSources, now: number): Promise<SpendSummary | undefined> {
  try {
    const view = await spendView(src.config, agentId, src.spend ? () => src.spend as SpendCounts : undefined, now);
    if (!view) return undefined;
    return {
      dayMicros: view.totals.dayMicros,
      monthMicros: view.totals.monthMicros,
      dayCapMicros: view.caps.dayMicros,
      monthCapMicros: view.caps.monthMicros,
      text: view.text,
      ...(view.reached ? { reached: { period: view.reached.period, resetsAt: view.reached.resetsAt } } : {}),
    };
  } catch (err) {
    src.log.warn('dashboard: spend unreadable', { agentId, ...errorFields(err) });
    return { dayMicros: 0, monthMicros: 0, text: 'unreadable', error: err instanceof Error ? err.name : 'unreadable' };
  }
}

/** The agent a Telegram account's messages go to, when a binding names the account. */
function agentOfAccount(config: FleetConfig, accountId: string): string | undefined {
  return (
    config.bindings.find((b) => b.match.accountId === accountId && !b.match.peer)?.agentId ??
    config.bindings.find((b) => b.match.accountId === accountId)?.agentId
  );
}

function pairingView(config: FleetConfig, p: PairingRecord): PairingView {
  return {
    accountId: p.accountId,
    peerId: p.peerId,
    displayName: p.displayName,
    code: p.code,
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
    agentId: agentOfAccount(config, p.accountId),
  };
}

async function pendingPairings(src: DashboardSources, now: number): Promise<PairingView[]> {
  return (await src.pairings.listPending(now)).map((p) => pairingView(src.config, p)).sort((a, b) => a.createdAt - b.createdAt);
}

export async function buildFleetView(src: DashboardSources): Promise<FleetView> {
  const now = src.clock.now();
  const [agents, pairings] = await Promise.all([Promise.all(src.config.agents.list.map((a) => summarize(a.id, src, now))), pendingPairings(src, now)]);
  const byState = Object.fromEntries(AGENT_STATES.map((s) => [s, agents.filter((a) => a.state === s).length])) as Record<AgentState, number>;
  const sum = (f: (a: AgentSummary) => number) => agents.reduce((n, a) => n + f(a), 0);
  return {
    fleet: src.config.fleet,
    where: src.where,
    now,
    agents,
    totals: {
      agents: agents.length,
      byState,
      queued: sum((a) => a.queue?.depth ?? 0),
      deadLetters: sum((a) => (a.queue ? a.queue.dlq + a.queue.outboxDlq : 0)),
      pendingPairings: pairings.length,
      turns24h: sum((a) => a.activity.reduce((n, b) => n + b.turns, 0)),
      errors24h: sum((a) => a.activity.reduce((n, b) => n + b.errors, 0)),
      withWarnings: agents.filter((a) => a.warnings.length > 0).length,
      overBudget: agents.filter((a) => a.spend?.reached).length,
    },
    pairings,
    chat: src.chat,
  };
}

function cronJobs(config: FleetConfig, agentId: string, now: number): CronJobView[] {
  return (config.cron?.jobs ?? [])
    .filter((j) => j.agentId === agentId)
    .map((j) => {
      const next = nextRun(j.schedule, now);
      const s = j.schedule;
      return {
        id: j.id,
        schedule: s.kind === 'at' ? `at ${s.at}` : s.kind === 'every' ? `every ${s.every}` : `${s.expr}${s.tz ? ` (${s.tz})` : ' (UTC)'}`,
        nextRunAt: next.at,
        nextRunNote: next.note,
        sessionTarget: j.sessionTarget,
        payload: j.payload.kind === 'systemEvent' ? `system event: ${j.payload.text}` : `agent turn: ${j.payload.message}`,
      };
    });
}

function mcpServers(config: FleetConfig, agentId: string, live: Record<string, McpServerState> = {}): McpServerView[] {
  const servers = resolveAgent(config, agentId).mcp?.servers ?? {};
  return Object.entries(servers).map(([name, s]) => ({
    name,
    ...('command' in s
      ? { transport: 'stdio' as const, target: [s.command, ...(s.args ?? [])].join(' '), secrets: Object.values(s.env ?? {}) }
      : { transport: 'http' as const, target: s.url, secrets: Object.values(s.headers ?? {}) }),
    live: live[name],
  }));
}

export async function buildAgentDetail(agentId: string, src: DashboardSources): Promise<AgentDetail> {
  const now = src.clock.now();
  const [agent, record, sessions, turns, pairings, workspace] = await Promise.all([
    summarize(agentId, src, now),
    src.registry.get(agentId),
    src.sessions.list(agentId, SESSIONS_SHOWN),
    src.metrics.recentTurns(agentId, now - DAY_MS, TURNS_SHOWN),
    pendingPairings(src, now),
    src.workspace?.(agentId).catch((err: unknown) => {
      src.log.warn('dashboard: workspace figures unreadable', { agentId, ...errorFields(err) });
      return undefined;
    }),
  ]);
  return {
    fleet: src.config.fleet,
    where: src.where,
    now,
    agent,
    sessions: sessions.map((s) => ({ sessionKey: s.sessionKey, channel: s.target.channel, updatedAt: s.updatedAt })),
    turns,
    cron: cronJobs(src.config, agentId, now),
    mcp: mcpServers(src.config, agentId, record?.mcp),
    pairings: pairings.filter((p) => p.agentId === agentId),
    chat: src.chat,
    workspace,
  };
}

/** Records each agent's queue depth now, for the queue chart: the health tick or a local timer calls it. */
export async function sampleQueueDepths(src: Pick<DashboardSources, 'config' | 'queues' | 'metrics' | 'clock' | 'log'>): Promise<void> {
  const now = src.clock.now();
  await Promise.all(
    src.config.agents.list.map(async ({ id }) => {
      try {
        await src.metrics.recordQueueDepth(id, now, (await src.queues.stats(id)).depth);
      } catch (err) {
        src.log.warn('dashboard: queue depth not sampled', { agentId: id, ...errorFields(err) });
      }
    }),
  );
}
