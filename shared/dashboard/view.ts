// The dashboard's read model: what a person needs to understand the fleet at a glance,
// as plain data. Built by fleet-view.ts from the ports; rendered by dashboard/ and served
// as JSON. It holds names, states and counts only: never a secret value.
import type { McpServerState } from '../ports.ts';
import type { WorkspaceSync } from '../workspace/sync-log.ts';
import type { ActivityBucket, AgentState, QueueFigures, TurnEvent } from '../ports.ts';

export type FleetAction = 'wake' | 'hibernate' | 'restart';

export interface AgentSummary {
  id: string;
  name: string;
  state: AgentState;
  stateSince: number | undefined;
  model: string | undefined;
  fallbacks: string[];
  profile: { cpus: number | undefined; memoryMb: number | undefined; alwaysOn: boolean; idleTimeoutMinutes: number | undefined; spot: boolean };
  lastHeartbeatAt: number | undefined;
  lastActivityAt: number | undefined;
  lastError: string | undefined;
  /** What the runtime warned about at its last heartbeat (exec off for want of a sandbox, exec unsandboxed). */
  warnings: string[];
  version: string | undefined;
  restarts: number | undefined;
  /** Undefined when the queues could not be read; `queueError` says why. */
  queue: QueueFigures | undefined;
  queueError?: string | undefined;
  /** The last 24 h in 15-minute buckets, oldest first. */
  activity: ActivityBucket[];
  /** What the operator may do in this state. */
  actions: FleetAction[];
  /** Local mode: the process id and crash restarts. */
  detail?: string | undefined;
  /** Budgets (#31): spend against the caps (the control plane's count); absent for an agent without a budget. */
  spend?: SpendSummary | undefined;
}

/** An agent's spend against its budget, as the dashboard shows it. */
export interface SpendSummary {
  /** µUSD spent today and this month (UTC). */
  dayMicros: number;
  monthMicros: number;
  dayCapMicros?: number | undefined;
  monthCapMicros?: number | undefined;
  /** "$0.42 of $1.00 today · $3.10 of $20.00 this month (UTC)". */
  text: string;
  /** The cap reached, if one is: messages are answered with a note and cron jobs and heartbeats pause until it resets. */
  reached?: { period: 'day' | 'month'; resetsAt: number } | undefined;
  /** The count could not be read (logged): the figures above are not known. */
  error?: string | undefined;
}

export interface PairingView {
  accountId: string;
  peerId: string;
  displayName: string | undefined;
  code: string;
  createdAt: number;
  expiresAt: number;
  /** The agent the account is bound to, when a binding names one. */
  agentId: string | undefined;
}

export interface FleetView {
  fleet: string;
  where: 'aws' | 'local';
  now: number;
  agents: AgentSummary[];
  totals: {
    agents: number;
    byState: Record<AgentState, number>;
    queued: number;
    deadLetters: number;
    pendingPairings: number;
    turns24h: number;
    errors24h: number;
    withWarnings: number;
    /** Agents whose budget is spent (#31). */
    overBudget: number;
  };
  pairings: PairingView[];
  /** Local mode has a chat box per agent. */
  chat: boolean;
}

export interface SessionView {
  sessionKey: string;
  channel: string;
  updatedAt: number;
}

export interface CronJobView {
  id: string;
  schedule: string;
  /** Epoch ms of the next run, when it can be known from the config alone. */
  nextRunAt: number | undefined;
  /** Why there is no next run (past one-shot, rate anchored at deploy, too far away). */
  nextRunNote: string | undefined;
  sessionTarget: 'main' | 'isolated';
  payload: string;
}

export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http';
  /** The command or URL, as configured (no secret values: env and headers hold names). */
  target: string;
  secrets: string[];
  /** As the runtime's last heartbeat reported it; absent while no runtime has reported. */
  live?: McpServerState | undefined;
}

/** The agent's workspace: its size, and its last push or pull (`clawfleet workspace`). */
export interface WorkspaceView {
  /** Measured now (locally), or as the last push or pull found it (on AWS, where the dashboard does not reach EFS). */
  size?: { files: number; bytes: number; asOf: 'now' | 'last-sync'; complete: boolean } | undefined;
  lastSync?: WorkspaceSync | undefined;
}

export interface AgentDetail {
  fleet: string;
  where: 'aws' | 'local';
  now: number;
  agent: AgentSummary;
  sessions: SessionView[];
  turns: TurnEvent[];
  cron: CronJobView[];
  mcp: McpServerView[];
  pairings: PairingView[];
  chat: boolean;
  /** Undefined where the dashboard has no way to know (an unreadable record is logged, not shown). */
  workspace?: WorkspaceView | undefined;
}
