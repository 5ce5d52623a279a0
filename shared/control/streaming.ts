// The conversation settings of a Telegram account (its own, else the channel's, else the
// default): whether and how fast an answer is streamed (OpenClaw's `streaming`; the control
// plane decides and tells the runtime in the message envelope, so the runtime never needs the
// channel's config), the ack reaction, reply threading, and what becomes of edited messages. Private chats get about a draft a second (sendMessageDraft is made for it);
// groups get an edited preview message, slower, since every edit counts against the group's limit.
import type { FleetConfig } from '../config/schema.ts';
import { DEFAULT_BLOCK_CHUNK, type StreamRequest } from '../protocol/envelopes.ts';
import { reactionSpelling } from '../telegram/reaction-emoji.ts';

export const DRAFT_INTERVAL_MS = { direct: 1_000, group: 3_000 } as const;

type Settings = Pick<
  NonNullable<FleetConfig['channels']['telegram']>,
  'streaming' | 'blockStreamingChunk' | 'ackReaction' | 'ackReactionScope' | 'replyToMode' | 'editedMessages' | 'reactionNotifications'
>;
function setting<K extends keyof Settings>(config: FleetConfig, accountId: string, key: K): Settings[K] {
  const telegram = config.channels.telegram;
  const own: Settings | undefined = telegram?.accounts[accountId];
  return own?.[key] ?? telegram?.[key];
}

/** OpenClaw's default is partial. */
export function streamingMode(config: FleetConfig, accountId: string | undefined): 'off' | 'partial' | 'block' | 'progress' {
  return (accountId === undefined ? config.channels.telegram?.streaming : setting(config, accountId, 'streaming')) ?? 'partial';
}

export const DEFAULT_ACK_REACTION = '👀';

/** Whether an admitted message gets a reaction at all (`ackReactionScope`), the ack or status reactions (#31). */
export function ackScopeApplies(config: FleetConfig, accountId: string, chat: { kind: 'direct' | 'group'; mentioned: boolean }): boolean {
  const scope = setting(config, accountId, 'ackReactionScope') ?? 'all';
  return (
    scope === 'all' ||
    (scope === 'direct' && chat.kind === 'direct') ||
    (scope === 'group-all' && chat.kind === 'group') ||
    (scope === 'group-mentions' && chat.kind === 'group' && chat.mentioned)
  );
}

/** The ack reaction for an admitted message, or undefined when this message gets none. */
export function ackReactionFor(config: FleetConfig, accountId: string, chat: { kind: 'direct' | 'group'; mentioned: boolean }): string | undefined {
  const emoji = reactionSpelling(setting(config, accountId, 'ackReaction') ?? DEFAULT_ACK_REACTION);
  return emoji !== '' && ackScopeApplies(config, accountId, chat) ? emoji : undefined;
}

export function replyToMode(config: FleetConfig, accountId: string): 'off' | 'first' | 'all' {
  return setting(config, accountId, 'replyToMode') ?? 'off';
}

/** What becomes of a user's edit of a message already sent: ignored (the default, as before), or a note to the agent. */
export function editedMessagesMode(config: FleetConfig, accountId: string): 'ignore' | 'note' {
  return setting(config, accountId, 'editedMessages') ?? 'ignore';
}

/** Which of the users' reactions reach the agent (#31): OpenClaw's default is own, reactions to the bot's own messages. */
export function reactionNotificationsMode(config: FleetConfig, accountId: string): 'off' | 'own' | 'all' {
  return setting(config, accountId, 'reactionNotifications') ?? 'own';
}

/** The updates the control plane reads: the ones Telegram is asked for, by the webhook (setWebhook) and by local polling (getUpdates). */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/**
 * An account's allowed_updates: edits too where it passes them on (`editedMessages: "note"`), the
 * users' reactions where they reach the agent (`reactionNotifications` not off), so no account's
 * bot is sent updates for nothing. (Telegram sends a group's reactions only to a bot that is an
 * administrator there.)
 */
export function allowedUpdatesFor(config: FleetConfig, accountId: string): string[] {
  return [
    ...ALLOWED_UPDATES,
    ...(editedMessagesMode(config, accountId) === 'note' ? ['edited_message'] : []),
    ...(reactionNotificationsMode(config, accountId) !== 'off' ? ['message_reaction'] : []),
  ];
}

/**
 * How the answer to a message in this chat is streamed, if at all. `accountId` undefined is
 * the dashboard's chat box, which follows the channel-wide setting as a private chat.
 */
export function streamRequestFor(config: FleetConfig, accountId: string | undefined, chatKind: 'direct' | 'group'): StreamRequest | undefined {
  const mode = streamingMode(config, accountId);
  if (mode === 'off') return undefined;
  if (mode === 'partial' || mode === 'progress') return { mode, minIntervalMs: DRAFT_INTERVAL_MS[chatKind] };
  const chunk =
    (accountId === undefined ? undefined : config.channels.telegram?.accounts[accountId]?.blockStreamingChunk) ?? config.channels.telegram?.blockStreamingChunk;
  const minChars = chunk?.minChars ?? Math.min(DEFAULT_BLOCK_CHUNK.minChars, chunk?.maxChars ?? Infinity);
  const maxChars = chunk?.maxChars ?? Math.max(DEFAULT_BLOCK_CHUNK.maxChars, minChars);
  return { mode, minIntervalMs: DRAFT_INTERVAL_MS[chatKind], block: { minChars, maxChars } };
}
