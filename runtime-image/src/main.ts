// The agent runtime's entry point: the same one the container runs (bundled) and the tests
// start. Reads the environment, connects this agent's own queues and secret (AWS) or the
// local control plane's channel, starts the runtime, and drains on SIGTERM.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerStore } from '../../shared/adapters/aws/secrets-manager-store.ts';
import { SqsDeadLetters, SqsInbox, SqsOutbox } from '../../shared/adapters/aws/sqs-queues.ts';
import { HttpRuntimeChannel } from '../../shared/adapters/local/http-runtime-channel.ts';
import { watchParent } from '../../shared/adapters/local/parent-watch.ts';
import { createLogger, errorFields, processRedactor } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { startAgentRuntime, type AgentRuntime, type RuntimeParts } from './agent-runtime.ts';
import { readRuntimeEnv, type RuntimeEnv } from './env.ts';
import { checkOwnSecretId } from './secrets.ts';

async function main(): Promise<void> {
  const env = await readRuntimeEnv(process.env);
  const log = createLogger({ component: 'runtime', agentId: env.agentId });
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
  let runtime: AgentRuntime | undefined;
  let stopping: { signal: string; drainMs: number } | undefined;
  const stop = (signal: string, drainMs = env.drainMs) => {
    if (stopping) return;
    stopping = { signal, drainMs };
    log.info('stopping', { signal, drainMs });
    stopRequested.abort();
    if (runtime) drain(runtime, drainMs);
  };
  const drain = (r: AgentRuntime, drainMs: number) =>
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

  try {
    runtime = await startAgentRuntime({ env, ...connect(env), clock: systemClock, log, exit, stopSignal: stopRequested.signal });
  } catch (err) {
    if (stopping && (err as { code?: unknown }).code === 'STOPPED_WAITING_FOR_SECRET') return exit(0);
    throw err;
  }
  if (stopping) drain(runtime, stopping.drainMs);
}

/** This agent's queues and secrets: its own SQS queues and secret on AWS (read by the runtime, again while a value is missing), the local control plane's channel locally. */
function connect(env: RuntimeEnv): Pick<RuntimeParts, 'inbox' | 'outbox' | 'deadLetters' | 'secrets' | 'readSecrets'> {
  const t = env.transport;
  if (t.kind === 'local') {
    processRedactor.add(...Object.values(t.secrets));
    const channel = new HttpRuntimeChannel(t.controlUrl, t.token, env.visibilitySeconds);
    return { inbox: channel, outbox: channel, deadLetters: channel, secrets: t.secrets };
  }
  // Checked before the read: this runtime asks for its own secret and no other.
  checkOwnSecretId(env.config, env.secretId);
  const sqs = new SQSClient({ maxAttempts: 3 });
  const store = new SecretsManagerStore(new SecretsManagerClient({ maxAttempts: 3 }));
  return {
    inbox: new SqsInbox(sqs, t.inboxUrl, env.visibilitySeconds),
    outbox: new SqsOutbox(sqs, t.outboxUrl),
    deadLetters: new SqsDeadLetters(sqs, async () => t.dlqUrl),
    secrets: {},
    readSecrets: () => store.get(env.secretId),
  };
}

main().catch((err) => {
  // An unrecoverable start-up error: exit non-zero so ECS (or the local launcher) replaces us.
  createLogger({ component: 'runtime', agentId: process.env.CLAWFLEET_AGENT_ID }).error('runtime failed to start', errorFields(err));
  process.exit(1);
});
