// A runtime turn and the control plane's outbox in one process, over the fake Bot API: each
// envelope the turn sends is handled by the outbox core (as λ outbox would take it, in order)
// with the control plane's own Telegram bot, an in-memory ledger, origins and media store. For
// tests of what a chat sees of a turn (spoken replies, progress statuses) without queues.
import { InMemoryDeliveryLedger, InMemoryInboundOrigins, InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { TelegramAccounts } from '../../shared/adapters/telegram/telegram-accounts.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { telegramSecretName } from '../../shared/config/names.ts';
import { DraftPauses } from '../../shared/control/drafts.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock, type InboundOrigin, type Outbox } from '../../shared/ports.ts';
import { PROTOCOL_VERSION, type MessageEnvelope, type OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { assistantMessage, type ModelClient } from '../../runtime-image/src/model/model.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import type { TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import type { FakeTelegram } from './fake-telegram.ts';
import { franTurnDeps } from './fran-turn.ts';
import { memoryOutboxDeps } from './outbox-deps.ts';

export const PLANE_BOT_TOKEN = '1000002:fran-token-for-tests';

export function chatPlane(tg: FakeTelegram, chatId: string) {
  const config = loadConfigFile('clawfleet.json');
  config.channels.telegram!.apiRoot = tg.url;
  const bots = new TelegramAccounts({
    config,
    secrets: new InMemorySecretStore({ [telegramSecretName(config.fleet)]: { FRAN_BOT_TOKEN: PLANE_BOT_TOKEN } }),
    where: 'in the test',
  });
  const origins = new InMemoryInboundOrigins(() => Date.now());
  const media = new InMemoryMediaStore();
  const ledger = new InMemoryDeliveryLedger();
  const log = memoryLogger();
  const { deps, dlq } = memoryOutboxDeps({
    config,
    origins,
    ledger,
    channel: async (t) => bots.sender(t.channel === 'telegram' ? t.accountId : 'fran'),
    draftPauses: new DraftPauses(),
    media,
    clock: systemClock,
    log,
  });
  const handled: OutboundEnvelope[] = [];
  /** λ outbox, in order: each envelope the runtime sends is processed before the next is sent. */
  const deliver = (envelope: OutboundEnvelope) =>
    processOutboxRecord({ source: `demo-outbox-${envelope.agentId}.fifo`, body: JSON.stringify(envelope), messageId: envelope.id }, deps);
  const outbox: Outbox = {
    async send(envelope) {
      await deliver(envelope);
      handled.push(envelope);
    },
  };
  /** Records the origin of message tg.fran.<n> from this chat (as the webhook does) and returns the message. */
  const admit = async (n: number, extra: Partial<MessageEnvelope> = {}, origin: Partial<InboundOrigin> = {}): Promise<MessageEnvelope> => {
    const id = `tg.fran.${n}`;
    await origins.put({
      id,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: { channel: 'telegram', accountId: 'fran', chatId },
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
      ...origin,
    });
    return {
      v: PROTOCOL_VERSION,
      kind: 'message',
      id,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      ts: Date.now(),
      text: 'hello',
      from: { channel: 'telegram', accountId: 'fran', peerId: chatId },
      ...extra,
    };
  };
  /** Fran's turn deps over this plane's outbox; `secrets` are masked. */
  const runtime = (model: ModelClient, more: Partial<TurnDeps> = {}, secrets: string[] = []): TurnDeps =>
    franTurnDeps(model, { outbox, clock: systemClock, log, masker: secretMasker(secrets), ...more }).deps;
  return { config, deps, dlq, origins, media, ledger, log, handled, deliver, admit, runtime };
}

export type ModelStep = { text?: string; calls?: { name: string; args?: Record<string, unknown> }[]; delayMs?: number };

/** A model that answers from a script (then "ok"), waiting `delayMs` (or until aborted) before a step, and counts its calls. */
export function scriptedModel(...script: ModelStep[]) {
  let n = 0;
  const model = {
    label: 'scripted/test',
    contextWindow: 100_000,
    calls: 0,
    /** `given`: this step instead of the script's next. */
    async complete(req: Parameters<ModelClient['complete']>[0], given?: ModelStep) {
      model.calls++;
      const step = given ?? script.shift() ?? { text: 'ok' };
      if (step.delayMs) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, step.delayMs);
          req.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
      if (req.signal?.aborted) return { ok: false as const, error: 'aborted', retriable: false };
      const content = [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...(step.calls ?? []).map((c) => ({ type: 'toolCall' as const, id: `call_${++n}`, name: c.name, arguments: c.args ?? {} })),
      ];
      req.onText?.(step.text ?? '');
      return { ok: true as const, message: assistantMessage('scripted/test', content) };
    },
  };
  return model satisfies ModelClient;
}
