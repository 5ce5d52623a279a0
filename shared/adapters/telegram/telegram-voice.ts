// Spoken replies on Telegram (#31): sendVoice with the Ogg Opus as a multipart upload, the
// reply's text as its caption (Telegram HTML, as a text message is formatted; plain if
// Telegram cannot parse it), threaded and with buttons as a text part would be. A chat whose
// user does not take voice messages (Telegram Premium's privacy setting) answers
// VOICE_MESSAGES_FORBIDDEN: that is a VoiceRefusedError, and the outbox sends the text instead.
import { PermanentDeliveryError, VoiceRefusedError, type ChannelSender, type ChannelTarget } from '../../ports.ts';
import { telegramMarkdown } from './telegram-markdown.ts';
import { sentMessage, type BotApi } from './bot-api.ts';

/** Telegram's limit for a caption, in characters as sent. */
export const TELEGRAM_MAX_CAPTION = 1024;

/** Whether `text` goes as one caption: its Telegram HTML fits (the plain text, never longer, then does too). */
export const captionFits = async (text: string): Promise<boolean> => (await telegramMarkdown()).markdownToTelegramHtml(text).length <= TELEGRAM_MAX_CAPTION;

export function voiceSender(
  api: BotApi,
  where: (target: ChannelTarget) => Record<string, unknown>,
  guarded: <T>(send: () => Promise<T>) => Promise<T>,
): NonNullable<ChannelSender['sendVoice']> {
  return async (target, voice, opts) => {
    const upload = api.upload;
    if (!upload) throw new PermanentDeliveryError('this Bot API client cannot upload files');
    const params = {
      ...where(target),
      ...(opts?.replyToMessageId !== undefined ? { reply_parameters: { message_id: opts.replyToMessageId, allow_sending_without_reply: true } } : {}),
      ...(opts?.buttons ? { reply_markup: { inline_keyboard: opts.buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) } } : {}),
      ...(voice.durationSeconds !== undefined ? { duration: voice.durationSeconds } : {}),
    };
    const send = async (caption: Record<string, unknown>) =>
      sentMessage(
        await guarded(() =>
          upload.call(api, 'sendVoice', { ...params, ...caption }, { field: 'voice', fileName: 'voice.ogg', mimeType: 'audio/ogg', bytes: voice.bytes }),
        ),
      );
    try {
      const caption = opts?.caption;
      if (caption === undefined) return await send({});
      const html = (await telegramMarkdown()).markdownToTelegramHtml(caption);
      if (html.length <= TELEGRAM_MAX_CAPTION) {
        try {
          return await send({ caption: html, parse_mode: 'HTML' });
        } catch (err) {
          if (!(err instanceof PermanentDeliveryError) || !/can't parse entities/i.test(err.message)) throw err;
        }
      }
      return await send({ caption: caption.slice(0, TELEGRAM_MAX_CAPTION) });
    } catch (err) {
      if (err instanceof PermanentDeliveryError && /VOICE_MESSAGES_FORBIDDEN/.test(err.message)) throw new VoiceRefusedError(err.message, { cause: err });
      throw err;
    }
  };
}
