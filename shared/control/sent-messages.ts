// Keeps each message the bot sends for an agent (#31), so a user's reaction to it — Telegram names
// only the chat and the message — reaches that agent, in that session and topic. Only where the
// account passes reactions on (reactionNotifications not off); best effort: a message not kept is
// one whose reactions are not passed on, never a reply held up.
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import type { ChannelTarget, Clock, InboundOrigin, SentMessage, SentMessages } from '../ports.ts';
import { ORIGIN_TTL_MS } from './origins.ts';
import { reactionNotificationsMode } from './streaming.ts';

export interface SentRecordDeps {
  config: FleetConfig;
  sentMessages?: SentMessages | undefined;
  clock: Clock;
  log: Logger;
}

/** Records `sent` as `origin`'s agent's answer in `target`; kept as long as an origin is. Never throws. */
export async function recordSent(origin: InboundOrigin, target: ChannelTarget, sent: SentMessage | void, deps: SentRecordDeps): Promise<void> {
  if (!sent || !deps.sentMessages || target.channel !== 'telegram' || reactionNotificationsMode(deps.config, target.accountId) === 'off') return;
  try {
    await deps.sentMessages.put({
      accountId: target.accountId,
      chatId: target.chatId,
      messageId: sent.messageId,
      agentId: origin.agentId,
      sessionKey: origin.sessionKey,
      ...(target.threadId !== undefined ? { threadId: target.threadId } : {}),
      expiresAt: deps.clock.now() + ORIGIN_TTL_MS,
    });
  } catch (err) {
    deps.log.warn('sent message not recorded: reactions to it will not reach the agent', {
      agentId: origin.agentId,
      inboundId: origin.id,
      ...errorFields(err),
    });
  }
}
