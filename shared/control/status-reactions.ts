// Status reactions (#31), OpenClaw's `statusReactions`: the reaction on the user's message follows
// its turn — queued (the ack, set by the webhook) → thinking (the turn's started status) → tool (its
// first tool call) → done (the reply delivered, or a turn ended without one) or error (a failed
// turn). Off by default on Telegram, as OpenClaw has it; with it off the ack is what it was, set on
// queueing and removed with the reply.
//
// Each message's state only moves forward, by a conditional write on its origin
// (InboundOrigins.advanceStatus) before the reaction is set: a late or redelivered "thinking" never
// replaces "done", and a redelivered "done" is not set twice. setMessageReaction replaces the
// bot's reaction, so the bot never has more than one on a message. Best effort: a reaction that
// fails is logged, never retried, and never holds up or doubles a reply. In-between states are
// paced per chat (ReactionPacer); done and error always go.
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import {
  type ChannelSender,
  type ChannelTarget,
  type Clock,
  type InboundOrigin,
  type InboundOrigins,
  RetryLaterError,
  type StatusFrom,
  type StatusState,
} from '../ports.ts';
import { reactionSpelling } from '../telegram/reaction-emoji.ts';
import { ackReactionFor, ackScopeApplies, DEFAULT_ACK_REACTION, DRAFT_INTERVAL_MS } from './streaming.ts';

/** Forward only: each state's rank; done and error are both final. */
const RANK: Record<StatusFrom, number> = { unset: -1, queued: 0, thinking: 1, tool: 2, done: 3, error: 3 };
const STATES = Object.keys(RANK) as StatusFrom[];

/** The states a message may move to `to` from: every earlier one (a message whose queued step was never set too). Nothing moves on from done or error. */
export const statesBefore = (to: StatusState): StatusFrom[] => STATES.filter((s) => RANK[s] < RANK[to]);

/**
 * OpenClaw's emoji for the states after queued (DEFAULT_EMOJIS in its src/channels/status-reactions.ts),
 * each one Telegram takes as a reaction; queued is the ack's.
 */
export const DEFAULT_STATUS_EMOJI = { thinking: '🤔', tool: '🔥', done: '👍', error: '😱' } as const;

type Telegram = NonNullable<FleetConfig['channels']['telegram']>;
type StatusReactionsConfig = NonNullable<Telegram['statusReactions']>;

/** The account's own statusReactions, key by key over the channel's. */
function settings(config: FleetConfig, accountId: string): StatusReactionsConfig {
  const channel = config.channels.telegram?.statusReactions;
  const own = config.channels.telegram?.accounts[accountId]?.statusReactions;
  return { enabled: own?.enabled ?? channel?.enabled, emojis: { ...channel?.emojis, ...own?.emojis } };
}

/** Whether an account's messages get status reactions (default off, OpenClaw's default on Telegram). */
export const statusReactionsOn = (config: FleetConfig, accountId: string): boolean => settings(config, accountId).enabled === true;

/** Whether any account has them: the outbox reads a status's origin only then. */
export const anyStatusReactions = (config: FleetConfig): boolean =>
  Object.keys(config.channels.telegram?.accounts ?? {}).some((accountId) => statusReactionsOn(config, accountId));

/** A state's emoji on an account: its own setting, else queued the ack's (else 👀), the others OpenClaw's. "" shows none. */
export function statusEmoji(config: FleetConfig, accountId: string, state: StatusState): string {
  const chosen = settings(config, accountId).emojis?.[state];
  if (chosen !== undefined) return reactionSpelling(chosen);
  if (state !== 'queued') return DEFAULT_STATUS_EMOJI[state];
  const ack = config.channels.telegram?.accounts[accountId]?.ackReaction ?? config.channels.telegram?.ackReaction;
  return reactionSpelling(ack ?? DEFAULT_ACK_REACTION);
}

/** What an admitted message is given: the plain ack (removed with the reply), or status reactions starting at queued. */
export type ReactionPlan = { kind: 'ack'; emoji: string } | { kind: 'status'; emoji: string };

/** The plan for a message admitted in this chat; undefined where it gets no reaction (ackReactionScope, an ack of ""). */
export function reactionPlanFor(config: FleetConfig, accountId: string, chat: { kind: 'direct' | 'group'; mentioned: boolean }): ReactionPlan | undefined {
  if (!statusReactionsOn(config, accountId)) {
    const emoji = ackReactionFor(config, accountId, chat);
    return emoji ? { kind: 'ack', emoji } : undefined;
  }
  return ackScopeApplies(config, accountId, chat) ? { kind: 'status', emoji: statusEmoji(config, accountId, 'queued') } : undefined;
}

/**
 * At most one in-between reaction per chat per interval — one a second in a private chat, one per
 * 3 s in a group, the pace Telegram asks of messages (a second apart per chat, 20 a minute per
 * group; it publishes no figure for reactions) — and none while a chat is paused after a 429.
 * Per process: the one λ outbox instance (or local control plane) that paces a chat's burst;
 * Telegram's own 429 is the backstop across instances.
 */
export class ReactionPacer {
  private readonly last = new Map<string, number>();
  private readonly pausedUntil = new Map<string, number>();

  /** Whether a reaction may be set in `chat` now; a final state always may (it replaces whatever is there). */
  allows(chat: string, now: number, intervalMs: number, final: boolean): boolean {
    if (final) return true;
    if ((this.pausedUntil.get(chat) ?? 0) > now) return false;
    return now - (this.last.get(chat) ?? Number.NEGATIVE_INFINITY) >= intervalMs;
  }

  sent(chat: string, now: number): void {
    this.last.set(chat, now);
    if (this.last.size > 10_000) this.last.delete(this.last.keys().next().value!);
  }

  pause(chat: string, until: number): void {
    this.pausedUntil.set(chat, until);
    if (this.pausedUntil.size > 10_000) this.pausedUntil.delete(this.pausedUntil.keys().next().value!);
  }
}

export interface StatusReactionDeps {
  config: FleetConfig;
  origins: InboundOrigins;
  channel(target: ChannelTarget): Promise<ChannelSender>;
  pacer: ReactionPacer;
  clock: Clock;
  log: Logger;
}

/**
 * Moves the reaction on `origin`'s message to `to` if the message takes status reactions and its
 * state is before `to`; nothing otherwise. Never throws: the reply it may follow is delivered.
 */
export async function showStatus(origin: InboundOrigin, to: Exclude<StatusState, 'queued'>, deps: StatusReactionDeps): Promise<void> {
  const target = origin.target;
  if (!origin.statusReactions || origin.messageId === undefined || target.channel !== 'telegram') return;
  const ctx = { agentId: origin.agentId, inboundId: origin.id, state: to };
  const chat = `${target.accountId}:${target.chatId}`;
  const now = deps.clock.now();
  const final = to === 'done' || to === 'error';
  if (!deps.pacer.allows(chat, now, target.chatId.startsWith('-') ? DRAFT_INTERVAL_MS.group : DRAFT_INTERVAL_MS.direct, final)) {
    deps.log.info('status reaction skipped: the chat had one within its interval', ctx);
    return;
  }
  try {
    // Claimed before it is shown: whoever moves the state shows it, once; an older state never comes back.
    if (!(await deps.origins.advanceStatus(origin.id, to, statesBefore(to)))) return;
    deps.pacer.sent(chat, now);
    const emoji = statusEmoji(deps.config, target.accountId, to);
    await (await deps.channel(target)).react?.(target, origin.messageId, emoji || undefined);
  } catch (err) {
    if (err instanceof RetryLaterError) deps.pacer.pause(chat, now + err.seconds * 1000);
    deps.log.warn('status reaction not set', { ...ctx, ...errorFields(err) });
  }
}

/**
 * The webhook's first step, once the message is queued: claimed like every other, so a retried
 * update never puts "queued" back over a state the turn has reached meanwhile. Never throws.
 */
export async function showQueued(
  inboundId: string,
  target: ChannelTarget,
  messageId: number,
  emoji: string,
  deps: Pick<StatusReactionDeps, 'origins' | 'channel' | 'log'>,
): Promise<void> {
  try {
    if (!(await deps.origins.advanceStatus(inboundId, 'queued', ['unset'])) || emoji === '') return;
    await (await deps.channel(target)).react?.(target, messageId, emoji);
  } catch (err) {
    deps.log.warn('status reaction not set', { inboundId, state: 'queued', ...errorFields(err) });
  }
}
