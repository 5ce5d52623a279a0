// Agent fran's turn run in-process: runTurn's dependencies on a fresh temp workspace with an
// in-memory outbox, and the Telegram message that starts a turn in her main session.
import { InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import { PROTOCOL_VERSION, type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import type { ModelClient } from '../../runtime-image/src/model/model.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { TranscriptStore } from '../../runtime-image/src/session/transcript-store.ts';
import { defaultTurnLimits, type TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import { tempDir } from './temp-dirs.ts';

/**
 * Fran answering with `model`: the system clock, no tools, no secrets to mask, the default
 * limits; `more` adds to them or replaces any (other models, a fixed clock, tools made for the
 * workspace when it is a function of it). The in-memory outbox is handed back as itself, to read
 * what the turn sent (unless `more` gives the turn another).
 */
export function franTurnDeps(
  model: ModelClient,
  more: Partial<TurnDeps> | ((workspace: string) => Partial<TurnDeps>) = {},
): { deps: TurnDeps; outbox: InMemoryOutbox } {
  const workspace = tempDir('cf-fran-turn-');
  const outbox = new InMemoryOutbox();
  const deps: TurnDeps = {
    agentId: 'fran',
    agentName: 'Fran',
    workspace,
    transcripts: new TranscriptStore(workspace),
    model,
    outbox,
    clock: { now: () => Date.now() },
    log: memoryLogger(),
    tools: () => [],
    masker: secretMasker([]),
    limits: defaultTurnLimits,
    ...(typeof more === 'function' ? more(workspace) : more),
  };
  return { deps, outbox };
}

/** Message `tg.fran.<n>` from Telegram into fran's main session; `extra` adds a command, media or other fields. */
export const franMessage = (n: number, text: string, extra: Partial<MessageEnvelope> = {}): MessageEnvelope => ({
  v: PROTOCOL_VERSION,
  kind: 'message',
  id: `tg.fran.${n}`,
  agentId: 'fran',
  sessionKey: 'agent:fran:main',
  ts: 1,
  text,
  from: { channel: 'telegram', accountId: 'fran' },
  ...extra,
});
