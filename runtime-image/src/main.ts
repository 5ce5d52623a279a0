// The agent runtime's entry point: the same one the container runs (bundled) and the tests
// start. Takes ECS's credentials settings out of its environment (container-credentials.ts),
// reads the environment, connects this agent's own queues and secret (AWS) or the
// local control plane's channel, starts the runtime of the agent's kind (kinds/registry.ts:
// native, or OpenClaw driven through its gateway), and drains on SIGTERM.
import { resolvePathsUncheckedForTests } from '../../shared/adapters/fs/beneath.ts';
import { watchParent } from '../../shared/adapters/local/parent-watch.ts';
import { createLogger, errorFields } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { connect } from './connection/connect.ts';
import { handOffContainerCredentials, takeContainerCredentials } from './connection/container-credentials.ts';
import { readRuntimeEnv, runtimeStateDirOf } from './env.ts';
import { runtimeKindOf } from './kinds/registry.ts';
import type { RunningRuntime } from './kinds/runtime-kind.ts';
import { watchLifeline } from './connection/lifeline.ts';
import { chooseSandboxAtStart } from './sandbox/sandbox-at-start.ts';

async function main(): Promise<void> {
  // Before anything else runs: ECS's task credentials settings leave the environment, through a
  // re-execution of this process that /proc/<pid>/environ shows too (container-credentials.ts).
  const stateDir = runtimeStateDirOf(process.env);
  handOffContainerCredentials(process.env, stateDir);
  const handedOver = takeContainerCredentials(stateDir);
  if (handedOver) (await import('./connection/task-credentials.ts')).useContainerCredentials(handedOver);
  const env = await readRuntimeEnv(process.env);
  const log = createLogger({ component: 'runtime', agentId: env.agentId });
  if (handedOver) log.info('task credentials taken out of the environment', { endpoint: handedOver.relativeUri ? 'relative' : 'full' });
  if (env.uncheckedPathsForTests) {
    resolvePathsUncheckedForTests();
    log.warn('TEST-ONLY SWITCH ON: CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS=1, file tools follow links and do not check paths; never run a real agent like this');
  }
  const exit = (code: number) => {
    log.info('exiting', { code });
    process.exit(code);
  };
  // Locally the fleet that started this runtime is its control plane: once it is gone there is
  // nothing to drain to, so the runtime stops at once (turns aborted, their commands killed)
  // rather than outlive it. Watched from the start, so a fleet that dies meanwhile is seen too.
  let parentGone: () => void = () => exit(1);
  if (env.transport.kind === 'local') {
    watchParent(() => parentGone());
    // Its log lines go to the fleet: once that is gone, writing one (EPIPE) must not crash the
    // runtime before it has stopped what it started.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  }
  // Signals are heard from the start: a runtime still waiting for its secret stops at once.
  const stopRequested = new AbortController();
  let runtime: RunningRuntime | undefined;
  let stopping: { signal: string; drainMs: number } | undefined;
  const stop = (signal: string, drainMs = env.drainMs) => {
    if (stopping) return;
    stopping = { signal, drainMs };
    log.info('stopping', { signal, drainMs });
    stopRequested.abort();
    if (runtime) drain(runtime, drainMs);
  };
  const drain = (r: RunningRuntime, drainMs: number) =>
    r.stop(drainMs).then(
      () => exit(0),
      (err) => {
        log.error('stop failed', errorFields(err));
        exit(1);
      },
    );
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  parentGone = () => stop('the fleet that started this runtime is gone', 0);
  // Boxed locally, the runtime hears the fleet on its stdin: bwrap passes no signal on, and
  // inside the box's pid namespace the parent watch above sees bwrap's init, which stays.
  if (env.lifeline === 'stdin') watchLifeline(process.stdin, { stop: (signal) => stop(signal), gone: () => parentGone() });

  // What waits on other processes starts first — the sandbox probe, and on AWS the read of
  // the agent's secret — and the rest of the runtime (its kind's: tools, turn loop, worker) loads meanwhile.
  const startKind = runtimeKindOf(env);
  const sandbox = chooseSandboxAtStart(env);
  sandbox.catch(() => {}); // a failure is reported where it is awaited, in the kind's start
  try {
    const [start, connection] = await Promise.all([startKind, connect(env)]);
    runtime = await start({ env, ...connection, sandbox, clock: systemClock, log, exit, stopSignal: stopRequested.signal });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (stopping && (code === 'STOPPED_WAITING_FOR_SECRET' || code === 'STOPPED_WAITING_FOR_GATEWAY')) return exit(0);
    throw err;
  }
  if (stopping) drain(runtime, stopping.drainMs);
}

main().catch((err) => {
  // An unrecoverable start-up error: exit non-zero so ECS (or the local launcher) replaces us.
  createLogger({ component: 'runtime', agentId: process.env.CLAWFLEET_AGENT_ID }).error('runtime failed to start', errorFields(err));
  process.exit(1);
});
