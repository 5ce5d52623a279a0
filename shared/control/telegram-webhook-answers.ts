// What the webhook tells the chat on its own, each best effort (a failure is logged, never fails
// the update): a button press answered so it stops spinning, the ack reaction, a note about an
// attachment that could not be kept, and a sleeping agent woken with a word that it is coming.
import { errorFields } from '../log.ts';
import type { ChannelTarget } from '../ports.ts';
import type { CallbackQuery } from '../telegram/update.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import type { TelegramWebhookDeps } from './telegram-webhook-deps.ts';

export const WAKING_NOTE = '⏳ Waking up — the first answer after a nap takes a little longer.';

export async function answerPress(accountId: string, press: CallbackQuery, deps: TelegramWebhookDeps): Promise<void> {
  const chatId = String(press.message?.chat.id ?? press.from.id);
  try {
    await (await deps.channel({ channel: 'telegram', accountId, chatId })).answerButtonPress?.(press.id);
  } catch (err) {
    deps.log.warn('button press not answered', { accountId, ...errorFields(err) });
  }
}

/** Once the message is queued: the user sees it was taken; the outbox removes it with the reply. */
export async function acknowledge(chat: ChannelTarget, messageId: number, emoji: string, deps: TelegramWebhookDeps): Promise<void> {
  try {
    await (await deps.channel(chat)).react?.(chat, messageId, emoji);
  } catch (err) {
    deps.log.warn('ack reaction not set', { chatId: chat.chatId, ...errorFields(err) });
  }
}

/** The file is lost either way, and the agent's note says so too. */
export async function tellSender(chat: ChannelTarget, text: string, deps: TelegramWebhookDeps): Promise<void> {
  try {
    await (await deps.channel(chat)).sendText(chat, text);
  } catch (err) {
    deps.log.warn('note about an attachment not sent', errorFields(err));
  }
}

/**
 * The message is queued, so nothing here may fail the request: if waking fails, the next
 * health tick wakes the agent because its queue is not empty.
 */
export async function wakeForMessage(agentId: string, chat: ChannelTarget, deps: TelegramWebhookDeps, lifecycle: LifecycleDeps): Promise<void> {
  try {
    await lifecycle.registry.recordActivity(agentId, deps.clock.now());
    if (!(await wakeIfAsleep(agentId, lifecycle, 'message'))) return;
    // A cold start takes tens of seconds: show that something is happening.
    const channel = await deps.channel(chat);
    await channel.sendTyping(chat);
    await channel.sendText(chat, WAKING_NOTE);
  } catch (err) {
    deps.log.warn('agent not woken now; the health tick will', { agentId, ...errorFields(err) });
  }
}
