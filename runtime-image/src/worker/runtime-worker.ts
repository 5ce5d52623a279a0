// The worker over this agent's queue as every runtime kind runs it: the environment's polling,
// concurrency and redrive settings, the attempt log in the workspace, and exit 1 after the
// kind's stop when the queue cannot be read any more. The kind brings the turn.
import { WorkspaceAttemptLog } from './attempt-log.ts';
import type { RuntimeParts } from '../kinds/runtime-kind.ts';
import { Worker, type WorkerDeps } from './worker.ts';

export function runtimeWorker(
  parts: Pick<RuntimeParts, 'env' | 'inbox' | 'outbox' | 'deadLetters' | 'clock' | 'log' | 'exit'>,
  kind: Pick<WorkerDeps, 'handle' | 'giveUp' | 'control'> & { stop(): Promise<void> },
): Worker {
  const { env } = parts;
  return new Worker({
    agentId: env.agentId,
    inbox: parts.inbox,
    outbox: parts.outbox,
    deadLetters: parts.deadLetters,
    clock: parts.clock,
    log: parts.log,
    visibilitySeconds: env.visibilitySeconds,
    waitSeconds: env.waitSeconds,
    maxConcurrent: env.maxSessions,
    handle: kind.handle,
    maxReceiveCount: env.maxReceiveCount,
    giveUp: kind.giveUp,
    attempts: new WorkspaceAttemptLog(env.workspace),
    control: kind.control,
    isFatal: isFatalReceiveError,
    onFatal: () =>
      void kind.stop().then(
        () => parts.exit(1),
        () => parts.exit(1),
      ),
  });
}

/** Receive errors that retrying cannot fix: the queue is gone or we may not read it. */
export function isFatalReceiveError(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name ?? '';
  const message = err instanceof Error ? err.message : '';
  return (
    /QueueDoesNotExist|NonExistentQueue|AccessDenied|InvalidClientTokenId|UnrecognizedClientException|InvalidSecurity/.test(name) ||
    /control plane receive failed: 401/.test(message)
  );
}
