// The users' own reactions (#31, OpenClaw's `reactionNotifications`): a `message_reaction` update
// becomes a note for the agent whose message it is, read before its next turn — never a turn of
// its own, never a wake, never an answer. Telegram names the chat and the message, not the thread,
// so the message is looked up among the bot's own (SentMessages, written by the outbox): that
// gives the agent and session exactly, in any forum topic. With `all`, a reaction to someone
// else's message goes where the chat routes (never in a forum, whose topic Telegram does not say).
// The same access rules as a message apply, except that a reaction never mentions the bot (so
// requireMention does not apply, as in OpenClaw) and never asks for a pairing code. At most
// REACTION_RATE per chat reach the agents; a flood beyond that is acknowledged and dropped.
import { resolveAgent } from '../config/resolve.ts';
import { errorFields } from '../log.ts';
import { MessageEnvelopeSchema, type MessageEnvelope, PROTOCOL_VERSION, type Reaction } from '../protocol/envelopes.ts';
import { telegramInboundId } from '../protocol/ids.ts';
import { route } from '../routing/route.ts';
import type { MessageReaction } from '../telegram/update.ts';
import { decideAccess } from './access.ts';
import { newOrigin } from './origins.ts';
import { reactionNotificationsMode } from './streaming.ts';
import type { HttpResult, ReactionDeps, TelegramWebhookDeps } from './telegram-webhook-deps.ts';

export type { ReactionDeps } from './telegram-webhook-deps.ts';

/** At most this many reactions per chat reach the agents in each window: OpenClaw's agent-to-agent figure, 20 per 10 minutes. */
export const REACTION_RATE = { max: 20, windowMs: 10 * 60_000 } as const;

const ok = (why: Record<string, unknown>): HttpResult => ({ status: 200, body: { ok: true, ...why } });

/** What the user added: Telegram's emoji, and how many custom ones (removals are not passed on, as OpenClaw's). */
export function addedReactions(r: MessageReaction): { emoji: string[]; custom: number } {
  const had = new Set(r.old_reaction.map((t) => `${t.type}:${t.emoji ?? ''}`));
  const added = r.new_reaction.filter((t) => !had.has(`${t.type}:${t.emoji ?? ''}`));
  return {
    emoji: added.filter((t) => t.type === 'emoji' && t.emoji).map((t) => t.emoji!),
    custom: added.filter((t) => t.type === 'custom_emoji').length,
  };
}

export async function admitReaction(r: MessageReaction, req: { accountId: string; updateId: number }, deps: TelegramWebhookDeps): Promise<HttpResult> {
  const { config, log } = deps;
  const { accountId } = req;
  const ctx = { accountId, updateId: req.updateId };
  const skip = (reason: string) => {
    log.info('reaction skipped', { ...ctx, reason });
    return ok({ skipped: reason });
  };
  const mode = reactionNotificationsMode(config, accountId);
  if (mode === 'off') return skip('reactionNotifications is "off"');
  if (!deps.reactions) return skip('this control plane keeps no record of the bot’s messages');
  if (r.user?.is_bot) return skip('a bot’s reaction');
  const added = addedReactions(r);
  if (added.emoji.length === 0 && added.custom === 0) return skip('no reaction added');

  const chatId = String(r.chat.id);
  const kind = r.chat.type === 'private' ? ('direct' as const) : ('group' as const);
  const id = telegramInboundId(accountId, req.updateId);
  let access;
  let where: { agentId: string; sessionKey: string; topicId: number | undefined; toAgent: boolean };
  try {
    const sent = await deps.reactions.sent.get(accountId, chatId, r.message_id);
    const known = sent && config.agents.list.some((a) => a.id === sent.agentId) ? sent : undefined;
    if (known) where = { agentId: known.agentId, sessionKey: known.sessionKey, topicId: known.threadId, toAgent: true };
    else if (mode === 'own') return skip('not a message the bot sent for an agent (reactionNotifications "own")');
    else if (r.chat.is_forum) return skip('a forum message whose topic Telegram does not say');
    else {
      const to = route(config, { channel: 'telegram', accountId, kind, id: chatId });
      where = { agentId: to.agentId, sessionKey: to.sessionKey, topicId: undefined, toAgent: false };
    }
    if (resolveAgent(config, where.agentId).runtime.kind === 'openclaw') return skip('an agent of runtime.kind "openclaw" keeps no notes between turns');
    access = await decideAccess(
      {
        accountId,
        chat: { kind, id: chatId, topicId: where.topicId },
        senderId: r.user ? String(r.user.id) : undefined,
        senderName: r.user?.username ?? r.user?.first_name,
        // A reaction never mentions the bot: requireMention is for messages.
        mentioned: true,
        mayPair: false,
      },
      { config, pairings: deps.pairings, now: deps.clock.now(), newCode: deps.newPairingCode },
    );
    if (access.kind !== 'allow') return ok({ ignored: access.kind === 'ignore' ? access.reason : 'sender not paired' });
    if (await deps.dedupe.seen(id)) return ok({ duplicate: true });
    const now = deps.clock.now();
    const window = now - (now % REACTION_RATE.windowMs);
    if (!(await deps.reactions.rates.take(`${accountId}:${chatId}`, window, REACTION_RATE.windowMs, REACTION_RATE.max))) {
      log.warn('reaction dropped: the chat is past its reaction rate', { ...ctx, chatId, max: REACTION_RATE.max, windowMs: REACTION_RATE.windowMs });
      return ok({ skipped: 'the chat is past its reaction rate' });
    }
  } catch (err) {
    log.error('reaction not admitted; Telegram will retry', { ...ctx, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }

  const reaction: Reaction = {
    emoji: added.emoji,
    ...(added.custom > 0 ? { custom: Math.min(added.custom, 16) } : {}),
    messageId: r.message_id,
    toAgent: where.toAgent,
    ...(r.user
      ? { by: { kind: 'user' as const, name: r.user.username ? `${r.user.first_name} (@${r.user.username})` : r.user.first_name } }
      : r.actor_chat
        ? { by: { kind: 'chat' as const, name: r.actor_chat.title ?? '' } }
        : {}),
  };
  const envelope: MessageEnvelope = {
    v: PROTOCOL_VERSION,
    kind: 'message',
    id,
    agentId: where.agentId,
    sessionKey: where.sessionKey,
    // From the update, not the clock: a retried update makes a byte-identical envelope.
    ts: r.date * 1000,
    text: '',
    from: { channel: 'telegram', accountId, ...(r.user ? { peerId: String(r.user.id), displayName: r.user.username ?? r.user.first_name } : {}) },
    reaction,
  };
  const checked = MessageEnvelopeSchema.safeParse(envelope);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const problem = `${issue.path.join('.') || '(root)'}: ${issue.message}`;
    log.warn('reaction refused: it does not make a valid envelope', { ...ctx, problem });
    return { status: 400, body: { error: `update cannot be queued: ${problem}` } };
  }
  try {
    const now = deps.clock.now();
    // Nothing answers a reaction: its origin reaches nobody, so even a stray "typing…" goes nowhere.
    await deps.origins.put(newOrigin({ id, agentId: where.agentId, sessionKey: where.sessionKey, target: { channel: 'none' }, createdAt: now }));
    await deps.queues.send(checked.data);
    await deps.dedupe.remember(id, now + 48 * 3600 * 1000);
  } catch (err) {
    log.error('reaction not queued; Telegram will retry', { ...ctx, envelopeId: id, agentId: where.agentId, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
  // No wake: the note waits for the agent's next turn (a sleeping agent wakes at the next health tick, which sees its queue).
  log.info('reaction queued', { ...ctx, envelopeId: id, agentId: where.agentId, sessionKey: where.sessionKey, toAgent: where.toAgent });
  return ok({ envelopeId: id });
}
