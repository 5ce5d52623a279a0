// What an update says for an agent: the message (or the button press as one, or where the
// account passes them on an edit), the words its sender wrote apart from the words they pass
// on (a forward, a shared poll or contact, …), and the chat it came from. An update with
// nothing for an agent is answered here and goes no further.
import type { Forward, Shared } from '../protocol/envelopes.ts';
import { buttonPressText } from '../protocol/envelopes.ts';
import type { Peer } from '../routing/session-key.ts';
import { topicOf } from '../telegram/forum-topic.ts';
import { mediaNote } from '../telegram/media-note.ts';
import { forwardOf, sharedOf } from '../telegram/others-words.ts';
import { updateKind, type CallbackQuery, type TelegramMessage, type TelegramUpdate } from '../telegram/update.ts';
import { editedMessagesMode } from './streaming.ts';
import type { HttpResult, TelegramWebhookDeps, UpdateContext } from './telegram-webhook-deps.ts';

/** The message an update brings an agent, and what its sender said in it. */
export interface SaidMessage {
  message: TelegramMessage;
  /** Set when the update is a user's edit of a message already sent. */
  edit: TelegramMessage | undefined;
  /** The message's own JSON, for the readers of what the schema does not keep (media, others' words). */
  rawMessage: Record<string, unknown>;
  /** What the agent reads as the message's words (a note for an edit or an attachment included). */
  text: string;
  /** The sender's own words, none when the whole message is a forward. */
  own: { text?: string | undefined; caption?: string | undefined };
  forward: Forward | undefined;
  shared: Shared | undefined;
  peer: Peer;
}

/** The message in the update and its words; or the answer when it has nothing for an agent. */
export function saidMessage(
  update: TelegramUpdate,
  raw: unknown,
  press: CallbackQuery | undefined,
  ctx: UpdateContext,
  deps: Pick<TelegramWebhookDeps, 'config' | 'log'>,
): SaidMessage | HttpResult {
  // A user's edit of a message already sent: ignored unless the account passes edits on.
  const edit = update.message || press ? undefined : update.edited_message;
  if (edit && editedMessagesMode(deps.config, ctx.accountId) !== 'note') {
    deps.log.info('update skipped: an edited message, and editedMessages is "ignore"', ctx);
    return { status: 200, body: { ok: true, skipped: 'an edited message' } };
  }
  const message = update.message ?? (press ? pressAsMessage(press) : undefined) ?? edit;
  // Words its sender did not write travel apart from theirs, for the runtime to frame as someone
  // else's (protocol 5): a forward's text or caption, a poll, a contact, a place, …
  const fields = raw as { message?: Record<string, unknown>; edited_message?: Record<string, unknown> };
  const rawMessage = (update.message ? fields.message : edit ? fields.edited_message : undefined) ?? {};
  const forward = forwardOf(rawMessage);
  const shared = sharedOf(rawMessage);
  const own = forward ? {} : { text: message?.text, caption: message?.caption };
  // A photo, voice message or file arrives as a note saying so (with its caption), so the
  // agent can tell the user it cannot see it rather than the user hearing nothing; with a
  // media store the file itself is fetched later, and the note replaced. An edit carries its
  // new text or caption only: its file (if any) came with the message it edits.
  const note = message && message.text === undefined && !edit && !shared ? mediaNote(rawMessage) : undefined;
  const said = own.text ?? ([note, own.caption].filter((t) => t !== undefined).join('\n') || (forward || shared ? '' : undefined));
  const text = edit && said !== undefined ? editNoteText(edit.message_id, said) : said;
  if (!message || text === undefined) {
    deps.log.info('update skipped: nothing for an agent in it', { ...ctx, kind: updateKind(raw as Record<string, unknown>) });
    return { status: 200, body: { ok: true, skipped: 'nothing for an agent in it' } };
  }
  return { message, edit, rawMessage, text, own, forward, shared, peer: peerOf(ctx.accountId, message) };
}

/** The chat the message came from, as routing reads it. */
function peerOf(accountId: string, message: TelegramMessage): Peer {
  return {
    channel: 'telegram',
    accountId,
    kind: message.chat.type === 'private' ? 'direct' : 'group',
    id: String(message.chat.id),
    // A reply thread's id in a group is not a topic: only a topic message (or a forum's General) names one.
    topicId: topicOf(message),
  };
}

/** The press as the message the agent gets: the button's data, from the chat the button is in (nothing for an agent without either). */
function pressAsMessage(press: CallbackQuery): TelegramMessage | undefined {
  const on = press.message;
  if (!on || press.data === undefined) return undefined;
  return {
    message_id: on.message_id,
    ...(on.message_thread_id !== undefined ? { message_thread_id: on.message_thread_id } : {}),
    ...(on.is_topic_message !== undefined ? { is_topic_message: on.is_topic_message } : {}),
    from: press.from,
    chat: on.chat,
    date: on.date,
    text: buttonPressText(press.data),
  };
}

/** What the agent is told of an edit (`editedMessages: "note"`): which message, and what it says now. */
export const editNoteText = (messageId: number, text: string) => `[edited message ${messageId}] ${text}`;
