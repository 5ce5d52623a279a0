// The steps between an admitted message and its queue, each of which may end the update there:
// a control-plane command answered at once, an update seen before, an agent over its budget, an
// attachment that cannot be fetched now. Each answers what ends it; undefined lets it go on.
import { errorFields } from '../log.ts';
import type { ChannelTarget } from '../ports.ts';
import type { Route } from '../routing/route.ts';
import { budgetRefusal } from './budget-gate.ts';
import type { PlaneCommand } from './commands.ts';
import type { InboundMedia, InboundMediaDeps } from './inbound-media.ts';
import { DEDUPE_TTL_MS, unavailable, type HttpResult, type TelegramWebhookDeps, type UpdateContext } from './telegram-webhook-deps.ts';
import type { SaidMessage } from './telegram-webhook-message.ts';

/** Where the gates are: the update's envelope id, its route and chat, and the time it arrived. */
export interface Gated {
  id: string;
  target: Route;
  chat: ChannelTarget;
  now: number;
  ctx: UpdateContext;
}

/** /status, /whoami, /help and /stop, answered by the control plane itself (command-answers.ts), once per update. */
export async function answerCommand(name: PlaneCommand, said: SaidMessage, at: Gated, deps: TelegramWebhookDeps): Promise<HttpResult> {
  const { message, peer } = said;
  const cmdCtx = { ...at.ctx, envelopeId: at.id, agentId: at.target.agentId, command: name };
  try {
    const { answerPlaneCommand } = await import('./command-answers.ts');
    const outcome = await answerPlaneCommand(
      {
        name,
        id: at.id,
        agentId: at.target.agentId,
        sessionKey: at.target.sessionKey,
        chat: at.chat,
        chatKind: peer.kind,
        senderId: message.from ? String(message.from.id) : undefined,
        senderName: message.from?.username ?? message.from?.first_name,
        dedupeTtlMs: DEDUPE_TTL_MS,
      },
      deps,
    );
    deps.log.info(outcome === 'duplicate' ? 'duplicate update ignored' : 'command answered by the control plane', cmdCtx);
    return { status: 200, body: { ok: true, command: name, ...(outcome === 'duplicate' ? { duplicate: true } : {}) } };
  } catch (err) {
    deps.log.error('command not answered; Telegram will retry', { ...cmdCtx, ...errorFields(err) });
    return unavailable();
  }
}

/** Asked once, before the file is fetched: a retried update neither fetches its file again nor is queued twice. */
export async function refuseDuplicate(at: Gated, deps: TelegramWebhookDeps): Promise<HttpResult | undefined> {
  try {
    if (await deps.dedupe.seen(at.id)) {
      deps.log.info('duplicate update ignored', { ...at.ctx, envelopeId: at.id });
      return { status: 200, body: { ok: true, duplicate: true } };
    }
  } catch (err) {
    deps.log.error('dedupe not checked; Telegram will retry', { ...at.ctx, envelopeId: at.id, ...errorFields(err) });
    return unavailable();
  }
  return undefined;
}

/**
 * An agent whose budget is spent answers nothing: the sender is told its cap, when it resets and
 * how it is raised, and the update is remembered as admitted, so Telegram's retry of it is not
 * told twice. Undefined when the agent may take the message.
 */
export async function refuseOverBudget(at: Gated, replyTo: number | undefined, deps: TelegramWebhookDeps): Promise<HttpResult | undefined> {
  const log = { ...at.ctx, envelopeId: at.id, agentId: at.target.agentId };
  try {
    const refusal = await budgetRefusal(deps.config, at.target.agentId, deps.spend, at.now);
    if (!refusal) return undefined;
    await (await deps.channel(at.chat)).sendText(at.chat, refusal.text, replyTo !== undefined ? { replyToMessageId: replyTo } : {});
    await deps.dedupe.remember(at.id, at.now + DEDUPE_TTL_MS);
    deps.log.info('message not queued: the agent is over its budget', {
      ...log,
      period: refusal.reached.period,
      spentMicros: refusal.reached.spentMicros,
      capMicros: refusal.reached.capMicros,
    });
    return { status: 200, body: { ok: true, overBudget: refusal.reached.period } };
  } catch (err) {
    deps.log.error('budget not checked, or its note not sent; Telegram will retry', { ...log, ...errorFields(err) });
    return unavailable();
  }
}

// ── media (#16) ──────────────────────────────────────────────────────────────────
/** The message's file, kept for the agent; a passing failure answers 503 so Telegram retries the update. */
export async function fetchMedia(message: unknown, at: Gated, deps: TelegramWebhookDeps, media: InboundMediaDeps): Promise<InboundMedia | HttpResult> {
  try {
    const { storeInboundMedia } = await import('./inbound-media.ts');
    return await storeInboundMedia(message, { accountId: at.ctx.accountId, agentId: at.target.agentId, envelopeId: at.id }, media);
  } catch (err) {
    const ctx = { accountId: at.ctx.accountId, envelopeId: at.id, agentId: at.target.agentId };
    deps.log.error('attachment not fetched; Telegram will retry', { ...ctx, ...errorFields(err) });
    return unavailable();
  }
}
