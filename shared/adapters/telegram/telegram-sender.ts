// Delivers to Telegram chats through the Bot API: the ChannelSender for telegram targets.
import { PermanentDeliveryError, RetryLaterError, type ChannelSender, type ChannelTarget } from '../../ports.ts';
import { TELEGRAM_MAX_TEXT } from '../../telegram/chunk.ts';
import { markdownToTelegramHtml } from '../../telegram/markdown-html.ts';
import { TelegramApiError, type BotApi } from './bot-api.ts';

export function telegramSender(api: BotApi): ChannelSender {
  const where = (target: ChannelTarget) => {
    if (target.channel !== 'telegram') throw new Error(`telegram sender given a ${target.channel} target`);
    return { chat_id: target.chatId, ...(target.threadId !== undefined ? { message_thread_id: target.threadId } : {}) };
  };
  const call = async (method: string, params: Record<string, unknown>) => {
    try {
      await api.call(method, params);
    } catch (err) {
      if (err instanceof TelegramApiError && err.errorCode === 429 && err.retryAfterSeconds) throw new RetryLaterError(err.retryAfterSeconds, err.message, { cause: err });
      if (err instanceof TelegramApiError && !err.retriable) throw new PermanentDeliveryError(err.message, { cause: err });
      throw err;
    }
  };
  // Formatted first; if Telegram cannot parse our markup, the same text goes out plain.
  const sendText = async (target: ChannelTarget, text: string) => {
    try {
      await call('sendMessage', { ...where(target), text: markdownToTelegramHtml(text), parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    } catch (err) {
      if (!(err instanceof PermanentDeliveryError) || !/can't parse entities/i.test(err.message)) throw err;
      await call('sendMessage', { ...where(target), text });
    }
  };
  return {
    maxTextLength: TELEGRAM_MAX_TEXT,
    sendText,
    sendTyping: (target) => call('sendChatAction', { ...where(target), action: 'typing' }),
  };
}
