// The seam every runtime kind plugs into (registry.ts picks one): what a kind's start is given
// — this agent's connection (connection.ts) and the process's own parts — what it gives back,
// and the version every kind announces in its heartbeats.
import type { Logger } from '../../../shared/log.ts';
import type { Clock } from '../../../shared/ports.ts';
import type { RuntimeConnection } from '../connection/connection.ts';
import type { RuntimeEnv } from '../env.ts';
import type { ModelClient } from '../model/model.ts';
import type { SandboxChoice } from '../../../shared/adapters/sandbox/choose-sandbox.ts';

export const RUNTIME_VERSION = '0.2.0';

/** What a kind's start is given: the agent's connection (queues, secrets, media, ledger), and what the process brings. */
export interface RuntimeParts extends RuntimeConnection {
  env: RuntimeEnv;
  /** Aborted when the process is asked to stop before it has started (while it waits for its secret). */
  stopSignal?: AbortSignal;
  clock: Clock;
  log: Logger;
  /** For tests: a model instead of the configured providers. */
  model?: ModelClient;
  /** The sandbox, when the caller started looking for it already (chooseSandboxAtStart); else looked for here. */
  sandbox?: Promise<SandboxChoice | undefined>;
  /** For tests: what a Chromium unpacked outside the system needs in its environment (its libraries, its fonts). */
  browserEnv?: Record<string, string> | undefined;
  /** For tests: the browser's idle time in ms, shorter than tools.browser.idleMinutes (whole minutes) can say. */
  browserIdleMs?: number | undefined;
  /** Called when the runtime must end: 0 after a drain, 1 after an unrecoverable error. */
  exit(code: number): void;
}

/** What main.ts holds of a running runtime, whatever its kind. */
export interface RunningRuntime {
  /** Stops taking work, lets turns in flight finish for `drainMs`, then aborts them. */
  stop(drainMs?: number): Promise<void>;
}

export type StartRuntime = (parts: RuntimeParts) => Promise<RunningRuntime>;
