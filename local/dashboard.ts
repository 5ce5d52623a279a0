// The dashboard in local mode: the same handler as λ dashboard, fed from the local
// control plane (SQLite) and the process supervisor (process states in the registry's
// words: local/agent-state.ts).
import type { FleetActions } from '../shared/dashboard/actions.ts';
import { sampleQueueDepths, type DashboardSources } from '../shared/dashboard/fleet-view.ts';
import type { Logger } from '../shared/log.ts';
import { systemClock, type AgentRecord } from '../shared/ports.ts';
import type { DashboardDeps } from '../shared/dashboard/handler.ts';
import { CHAT_BOX } from '../shared/dashboard/pages/chat-box.ts';
import type { LocalControlPlane } from './sqlite-control-plane.ts';
import type { AgentStatus, FleetStatus } from './fleet-status.ts';
import { localAgentState } from './agent-state.ts';
import type { StorageWatch } from './storage-watch.ts';
import type { LifecycleAction, RuntimeState } from './runtime-launcher.ts';

export interface LocalDashboardInputs {
  cp: LocalControlPlane;
  log: Logger;
  /** The sign-in token when the secrets file sets no DASHBOARD_TOKEN (local/dashboard-token.ts). */
  dashboardToken: string;
  status(): FleetStatus;
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState>;
  /** Where writes that fail for a full disk are reported. */
  storage: StorageWatch;
  /** The agent's workspace now and its last push/pull (local/fleet.ts). */
  workspace?: DashboardSources['workspace'];
}

export const LOCAL_QUEUE_SAMPLE_MS = 30_000;

export function localDashboard(inputs: LocalDashboardInputs): { deps: DashboardDeps; sample(): Promise<void> } {
  const { cp } = inputs;
  const agentStatus = (agentId: string): AgentStatus | undefined => inputs.status().agents.find((a) => a.id === agentId);
  const sources: DashboardSources = {
    config: cp.config,
    where: 'local',
    registry: {
      async get(agentId): Promise<AgentRecord | undefined> {
        const s = agentStatus(agentId);
        if (!s) return undefined;
        // The registry row has what the runtime reported (activity, version, MCP, restarts);
        // the process state is the supervisor's, which knows first.
        const record = await cp.registry.get(agentId);
        return {
          ...record,
          agentId,
          state: localAgentState(s.state),
          stateChangedAt: record?.stateChangedAt ?? 0,
          lastHeartbeatAt: s.lastHeartbeat ?? record?.lastHeartbeatAt,
          lastError: s.lastError ?? record?.lastError,
        };
      },
    },
    queues: {
      async stats(agentId) {
        const s = agentStatus(agentId);
        return { depth: (s?.queue.visible ?? 0) + (s?.queue.inFlight ?? 0), dlq: s?.dlq ?? 0, outboxDlq: s?.outboxDlq ?? 0 };
      },
    },
    sessions: cp.sessions,
    pairings: cp.pairings,
    spend: cp.spend,
    metrics: {
      recordTurn: (event) => cp.metrics.recordTurn(event),
      activity: (agentId, from, to) => cp.metrics.activity(agentId, from, to),
      recentTurns: (agentId, from, limit) => cp.metrics.recentTurns(agentId, from, limit),
      // A sample missed on a full disk is a gap in a chart: reported once, not every 30 s per agent.
      async recordQueueDepth(agentId, at, depth) {
        try {
          await cp.metrics.recordQueueDepth(agentId, at, depth);
        } catch (err) {
          if (!inputs.storage.failed(err, 'queue depth sample')) throw err;
        }
      },
    },
    clock: systemClock,
    log: inputs.log,
    describe(agentId) {
      const s = agentStatus(agentId);
      return { model: s?.model, detail: s?.detail };
    },
    ...(inputs.workspace ? { workspace: inputs.workspace } : {}),
    chat: true,
  };
  const actions: FleetActions = {
    async act(agentId, action) {
      return localAgentState(await inputs.act(agentId, action));
    },
  };
  return {
    deps: {
      sources,
      actions,
      token: async () => (await cp.dashboardToken()) ?? inputs.dashboardToken,
      chat: {
        send: (agentId, text) => cp.chatMessage(agentId, text),
        press: (agentId, press) => cp.chatPress(agentId, press),
        since: (agentId, after) => cp.chat.since(agentId, after),
        box: CHAT_BOX,
      },
      secureCookie: false,
      storageFull: (err) => inputs.storage.failed(err, 'dashboard'),
      loginHint: `Local mode: DASHBOARD_TOKEN under "clawfleet/${cp.config.fleet}/control/dashboard" in your secrets file, if it is set there; otherwise the token in the state directory's dashboard-token file (.clawfleet/dashboard-token by default; kept across restarts).`,
      refreshMs: 2_000,
    },
    sample: () => sampleQueueDepths(sources),
  };
}
