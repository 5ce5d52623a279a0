// Delivers to Telegram chats through the Bot API: the ChannelSender for telegram targets.
import { PermanentDeliveryError, type ChannelSender, type ChannelTarget } from '../ports.ts';
import { TelegramApiError, type BotApi } from './bot-api.ts';
import { TELEGRAM_MAX_TEXT } from './chunk.ts';

export function telegramSender(api: BotApi): ChannelSender {
  const where = (target: ChannelTarget) => {
    if (target.channel !== 'telegram') throw new Error(`telegram sender given a ${target.channel} target`);
    return { chat_id: target.chatId, ...(target.threadId !== undefined ? { message_thread_id: target.threadId } : {}) };
  };
  const call = async (method: string, params: Record<string, unknown>) => {
    try {
      await api.call(method, params);
    } catch (err) {
      if (err instanceof TelegramApiError && !err.retriable) throw new PermanentDeliveryError(err.message, { cause: err });
      throw err;
    }
  };
  return {
    maxTextLength: TELEGRAM_MAX_TEXT,
    sendText: (target, text) => call('sendMessage', { ...where(target), text }),
    sendTyping: (target) => call('sendChatAction', { ...where(target), action: 'typing' }),
  };
}
