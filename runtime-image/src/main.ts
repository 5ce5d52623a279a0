// The agent runtime's entry point: the same one the container runs and the tests start.
// Wires the AWS adapters to the worker loop and drains on SIGTERM.
import { createAwsClients } from '../../shared/adapters/aws/clients.ts';
import { SecretsManagerStore } from '../../shared/adapters/aws/secrets-manager-store.ts';
import { SqsDeadLetters, SqsInbox, SqsOutbox } from '../../shared/adapters/aws/sqs-queues.ts';
import { CachedSecretStore } from '../../shared/adapters/cached-secret-store.ts';
import { createLogger, errorFields, processRedactor } from '../../shared/log.ts';
import { systemClock, type DeadLetters, type Inbox, type Outbox } from '../../shared/ports.ts';
import { HttpRuntimeChannel } from '../../shared/adapters/local/http-runtime-channel.ts';
import { readRuntimeEnv, type RuntimeEnv } from './env.ts';
import { modelForAgent } from './model-for-agent.ts';
import { offlineModel } from './offline-model.ts';
import { TranscriptStore } from './transcript.ts';
import { runTurn } from './turn.ts';
import { Worker } from './worker.ts';

export const RUNTIME_VERSION = '0.1.0';

async function main(): Promise<void> {
  const env = readRuntimeEnv(process.env);
  const log = createLogger({ component: 'runtime', agentId: env.agentId });
  const { inbox, outbox, deadLetters, secrets } = await connect(env);
  const model = env.offlineModel ? offlineModel(env.offlineModel) : modelForAgent(env.config, secrets, env.secretId);
  const transcripts = new TranscriptStore(env.workspace);
  const agent = env.config.agent;

  const worker = new Worker({
    agentId: env.agentId,
    inbox,
    outbox,
    deadLetters,
    clock: systemClock,
    log,
    visibilitySeconds: env.visibilitySeconds,
    waitSeconds: env.waitSeconds,
    runTurn: (message, attempt, signal) =>
      runTurn(message, attempt, {
        agentId: env.agentId,
        transcripts,
        model,
        outbox,
        clock: systemClock,
        log,
        systemPrompt: `You are ${agent.name ?? agent.id}, a personal AI agent. Answer helpfully and concisely.`,
        maxAttempts: 3,
        historyTurns: 20,
      }, signal),
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal, drainMs: env.drainMs });
    worker.stop(env.drainMs).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error('stop failed', errorFields(err));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  worker.start();
  log.info('ready', { version: RUNTIME_VERSION, model: model.label, transport: env.transport.kind, workspace: env.workspace });
}

/** This agent's queues and secrets: its own SQS queues and secret on AWS, the local control plane's channel locally. */
async function connect(env: RuntimeEnv): Promise<{ inbox: Inbox; outbox: Outbox; deadLetters: DeadLetters; secrets: Record<string, string> }> {
  const t = env.transport;
  if (t.kind === 'local') {
    processRedactor.add(...Object.values(t.secrets));
    const channel = new HttpRuntimeChannel(t.controlUrl, t.token, env.visibilitySeconds);
    return { inbox: channel, outbox: channel, deadLetters: channel, secrets: t.secrets };
  }
  const aws = createAwsClients();
  return {
    inbox: new SqsInbox(aws.sqs, t.inboxUrl, env.visibilitySeconds),
    outbox: new SqsOutbox(aws.sqs, t.outboxUrl),
    deadLetters: new SqsDeadLetters(aws.sqs, async () => t.dlqUrl),
    secrets: await new CachedSecretStore(new SecretsManagerStore(aws.secrets), systemClock.now).get(env.secretId),
  };
}

main().catch((err) => {
  // An unrecoverable start-up error: exit non-zero so ECS (or the local launcher) replaces us.
  createLogger({ component: 'runtime', agentId: process.env.CLAWFLEET_AGENT_ID }).error('runtime failed to start', errorFields(err));
  process.exit(1);
});
