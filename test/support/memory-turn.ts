// A turn for a runtime started over in-memory queues (startAgentRuntime in-process): a local
// message queued in its inbox as the control plane would, and an outbox that says when the
// reply to it has been sent.
import type { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { mainSessionKey } from '../../shared/routing/session-key.ts';

/** Queues `text` for `agentId`'s main session as message `id` from the local chat. */
export function queueLocalMessage(inbox: InMemoryFifoQueue, agentId: string, id: string, text: string): void {
  const sessionKey = mainSessionKey(agentId);
  inbox.push(JSON.stringify({ v: PROTOCOL_VERSION, kind: 'message', id, agentId, sessionKey, ts: 1, text, from: { channel: 'local' } }), sessionKey, id);
}

/** Resolves once a reply passes through `outbox` (which still records everything sent). */
export function replySent(outbox: InMemoryOutbox): Promise<void> {
  const send = outbox.send.bind(outbox);
  return new Promise<void>((resolve) => {
    outbox.send = async (e) => {
      await send(e);
      if (e.kind === 'reply') resolve();
    };
  });
}
