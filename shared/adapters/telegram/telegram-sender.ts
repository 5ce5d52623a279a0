// Delivers to Telegram chats through the Bot API: the ChannelSender for telegram targets.
// Streamed answers: a private chat gets sendMessageDraft (an ephemeral bubble the final
// sendMessage replaces), a group a preview message (sendMessage) that editMessageText grows
// and the final reply's first part replaces in place.
import {
  PermanentDeliveryError,
  RetryLaterError,
  type ChannelSender,
  type ChannelTarget,
  type OutgoingFile,
  type SendOptions,
  type SentMessage,
} from '../../ports.ts';
import { captionFits, voiceSender } from './telegram-voice.ts';
import { TELEGRAM_MAX_TEXT } from '../../telegram/chunk.ts';
import { GENERAL_TOPIC_ID } from '../../config/telegram-groups.ts';
import { telegramMarkdown } from './telegram-markdown.ts';
import { sentMessage, TelegramApiError, type BotApi } from './bot-api.ts';

const FILE_METHODS: Record<OutgoingFile['kind'], string> = {
  photo: 'sendPhoto',
  document: 'sendDocument',
  voice: 'sendVoice',
  audio: 'sendAudio',
  video: 'sendVideo',
  animation: 'sendAnimation',
};
/** The kinds Telegram processes (resizes, transcodes, previews): one it refuses as such still goes, as a document. */
const PROCESSED = new Set<OutgoingFile['kind']>(['photo', 'video', 'animation']);

export function telegramSender(api: BotApi): ChannelSender {
  // A forum's General topic (1) takes messages without a thread id: Telegram refuses sends to thread 1
  // ("message thread not found"), though "typing…" there needs it (as OpenClaw has it).
  const where = (target: ChannelTarget, opts: { typing?: boolean } = {}) => {
    if (target.channel !== 'telegram') throw new Error(`telegram sender given a ${target.channel} target`);
    const thread = target.threadId !== undefined && (target.threadId !== GENERAL_TOPIC_ID || opts.typing) ? { message_thread_id: target.threadId } : {};
    return { chat_id: target.chatId, ...thread };
  };
  const guarded = async <T>(send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (err) {
      if (err instanceof TelegramApiError && err.errorCode === 429 && err.retryAfterSeconds)
        throw new RetryLaterError(err.retryAfterSeconds, err.message, { cause: err });
      if (err instanceof TelegramApiError && !err.retriable) throw new PermanentDeliveryError(err.message, { cause: err });
      throw err;
    }
  };
  const call = <T = unknown>(method: string, params: Record<string, unknown>): Promise<T> => guarded(() => api.call<T>(method, params));
  // media (#16): one multipart upload per file, the method and field named by its kind; the caption plain.
  const sendFile = async (target: ChannelTarget, file: OutgoingFile) => {
    const upload = api.upload;
    if (!upload) throw new PermanentDeliveryError('this Bot API client cannot upload files');
    const send = (kind: OutgoingFile['kind']) =>
      guarded(() =>
        upload.call(
          api,
          FILE_METHODS[kind],
          { ...where(target), ...(file.caption ? { caption: file.caption } : {}) },
          { field: kind, fileName: file.fileName, mimeType: file.mimeType, bytes: file.bytes },
        ),
      );
    try {
      await send(file.kind);
    } catch (err) {
      // Telegram refuses some pictures as photos (dimensions, format), some files as videos or
      // animations: the same file still goes, as a document.
      if (
        !PROCESSED.has(file.kind) ||
        !(err instanceof PermanentDeliveryError) ||
        !/PHOTO_|IMAGE_PROCESS_FAILED|VIDEO_|wrong file type|too big/i.test(err.message)
      )
        throw err;
      await send('document');
    }
  };
  // Formatted first; if Telegram cannot parse our markup, the same text goes out plain.
  const sendText = async (target: ChannelTarget, text: string, opts?: SendOptions): Promise<SentMessage | void> => {
    const sent = await formatted<{ message_id?: unknown } | undefined>(
      'sendMessage',
      { ...where(target), ...thread(opts?.replyToMessageId), ...keyboard(opts), link_preview_options: { is_disabled: true } },
      text,
    );
    return sentMessage(sent);
  };
  /** Formatted if it fits, else (or if Telegram cannot parse our markup) the same call with the plain text. */
  const formatted = async <T>(method: string, params: Record<string, unknown>, text: string): Promise<T> => {
    const html = (await telegramMarkdown()).markdownToTelegramHtml(text);
    if (html.length <= TELEGRAM_MAX_TEXT) {
      try {
        return await call<T>(method, { ...params, text: html, parse_mode: 'HTML' });
      } catch (err) {
        if (!(err instanceof PermanentDeliveryError) || !/can't parse entities/i.test(err.message)) throw err;
      }
    }
    return call<T>(method, { ...params, text: text.slice(0, TELEGRAM_MAX_TEXT) });
  };
  // Editing a message to the text it already has is refused; for us that edit is done.
  const edited = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (err) {
      if (!(err instanceof PermanentDeliveryError) || !/message is not modified/i.test(err.message)) throw err;
    }
  };
  return {
    maxTextLength: TELEGRAM_MAX_TEXT,
    // Split after conversion, on Markdown block boundaries: no part carries broken markup.
    chunk: async (text) => (await telegramMarkdown()).telegramChunks(text, TELEGRAM_MAX_TEXT),
    sendText,
    sendTyping: async (target) => void (await call('sendChatAction', { ...where(target, { typing: true }), action: 'typing' })),
    sendFile,
    react: async (target, messageId, emoji) =>
      void (await call('setMessageReaction', { chat_id: where(target).chat_id, message_id: messageId, reaction: emoji ? [{ type: 'emoji', emoji }] : [] })),
    async showDraft(target, draft) {
      const chat = where(target);
      if (isPrivateChat(chat.chat_id)) {
        await formatted('sendMessageDraft', { ...chat, draft_id: draft.draftId }, draft.text);
        return {};
      }
      if (draft.previewMessageId !== undefined) {
        await edited(formatted('editMessageText', { chat_id: chat.chat_id, message_id: draft.previewMessageId }, draft.text));
        return {};
      }
      const sent = await formatted<{ message_id: number }>(
        'sendMessage',
        { ...chat, ...thread(draft.replyToMessageId), link_preview_options: { is_disabled: true } },
        draft.text,
      );
      return { previewMessageId: sent.message_id };
    },
    async finishPreview(target, previewMessageId, text, opts) {
      const chat = where(target);
      try {
        await edited(
          formatted(
            'editMessageText',
            { chat_id: chat.chat_id, message_id: previewMessageId, ...keyboard(opts), link_preview_options: { is_disabled: true } },
            text,
          ),
        );
      } catch (err) {
        // The preview is gone (deleted by someone): the answer is sent as a new message instead.
        if (!(err instanceof PermanentDeliveryError) || !/message to edit not found|message can't be edited/i.test(err.message)) throw err;
        return sendText(target, text, opts);
      }
      return { messageId: previewMessageId };
    },
    answerButtonPress: async (queryId) => void (await call('answerCallbackQuery', { callback_query_id: queryId })),
    // Spoken replies and progress statuses (#31): telegram-voice.ts.
    sendVoice: voiceSender(api, where, guarded),
    captionFits,
    async clearPreview(target, previewMessageId) {
      try {
        await call('deleteMessage', { chat_id: where(target).chat_id, message_id: previewMessageId });
      } catch (err) {
        // Gone already (someone deleted it, or an earlier attempt did): what was asked is done.
        if (!(err instanceof PermanentDeliveryError) || !/message to delete not found/i.test(err.message)) throw err;
      }
    },
  };
}

const thread = (messageId: number | undefined) =>
  messageId !== undefined ? { reply_parameters: { message_id: messageId, allow_sending_without_reply: true } } : {};

const keyboard = (opts: SendOptions | undefined) =>
  opts?.buttons ? { reply_markup: { inline_keyboard: opts.buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) } } : {};

/** Private chats have positive ids; groups and channels negative ones. */
const isPrivateChat = (chatId: string) => !chatId.startsWith('-');
