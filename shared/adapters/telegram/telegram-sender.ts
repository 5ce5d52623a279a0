// Delivers to Telegram chats through the Bot API: the ChannelSender for telegram targets.
import { PermanentDeliveryError, RetryLaterError, type ChannelSender, type ChannelTarget, type OutgoingFile } from '../../ports.ts';
import { TELEGRAM_MAX_TEXT } from '../../telegram/chunk.ts';
import { markdownToTelegramHtml } from '../../telegram/markdown-html.ts';
import { TelegramApiError, type BotApi } from './bot-api.ts';

const FILE_METHODS: Record<OutgoingFile['kind'], string> = { photo: 'sendPhoto', document: 'sendDocument', voice: 'sendVoice', audio: 'sendAudio' };

export function telegramSender(api: BotApi): ChannelSender {
  const where = (target: ChannelTarget) => {
    if (target.channel !== 'telegram') throw new Error(`telegram sender given a ${target.channel} target`);
    return { chat_id: target.chatId, ...(target.threadId !== undefined ? { message_thread_id: target.threadId } : {}) };
  };
  const call = (method: string, params: Record<string, unknown>) => guarded(() => api.call(method, params));
  const guarded = async (send: () => Promise<unknown>) => {
    try {
      await send();
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
  // media (#16): one multipart upload per file, the method and field named by its kind; the caption plain.
  const sendFile = async (target: ChannelTarget, file: OutgoingFile) => {
    const upload = api.upload;
    if (!upload) throw new PermanentDeliveryError('this Bot API client cannot upload files');
    const send = (kind: OutgoingFile['kind']) =>
      guarded(() => upload.call(api, FILE_METHODS[kind], { ...where(target), ...(file.caption ? { caption: file.caption } : {}) }, { field: kind, fileName: file.fileName, mimeType: file.mimeType, bytes: file.bytes }));
    try {
      await send(file.kind);
    } catch (err) {
      // Telegram refuses some pictures as photos (dimensions, format): the same file still goes, as a document.
      if (file.kind !== 'photo' || !(err instanceof PermanentDeliveryError) || !/PHOTO_|IMAGE_PROCESS_FAILED|wrong file type|too big/i.test(err.message)) throw err;
      await send('document');
    }
  };
  return {
    maxTextLength: TELEGRAM_MAX_TEXT,
    sendText,
    sendTyping: (target) => call('sendChatAction', { ...where(target), action: 'typing' }),
    sendFile,
  };
}
