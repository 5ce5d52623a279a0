// Spoken replies at the outbox (#31): a reply that carries a voice goes out as a voice message
// and its text — the text as the voice's caption where it fits one (Telegram: 1024 characters),
// else the voice first and the text after it as the reply's usual parts; where a group's preview
// already shows the answer, the text finishes the preview and the voice follows. Every message
// has its own key in the delivery ledger (the caption's is the text's part 0, an uncaptioned
// voice's `<id>#voice`), all fixed by the envelope alone, so a redelivered reply sends none twice.
// A voice that cannot go (the chat refuses voice messages, the file expired) leaves the text to
// say it all: the caption goes as a text message under the same key, and nothing odd is said.
import { VOICE_REPLY_MAX_BYTES } from '../media/media-ref.ts';
import type { VoiceRef } from '../protocol/envelopes.ts';
import { VoiceRefusedError, type ChannelSender, type ChannelTarget, type MediaStore, type SendOptions, type SentMessage } from '../ports.ts';
import type { Logger } from '../log.ts';

export type ReplyMessage =
  /** Part `part` of the reply's text. */
  | { kind: 'text'; key: string; text: string; part: number }
  /** The voice, with the whole text as its caption when `caption` is set. */
  | { kind: 'voice'; key: string; caption?: string | undefined };

/**
 * The messages a reply goes out as, in order. `voice` undefined (none, or nothing to send it
 * with): the text parts. `answerPreview`: the first part finishes a preview that already shows
 * the answer, so the voice comes after the text.
 */
export async function replyMessages(
  envelopeId: string,
  parts: string[],
  voice: VoiceRef | undefined,
  channel: ChannelSender,
  answerPreview: boolean,
): Promise<ReplyMessage[]> {
  const text = parts.map((t, part): ReplyMessage => ({ kind: 'text', key: `${envelopeId}#${part}`, text: t, part }));
  if (!voice || !channel.sendVoice) return text;
  const uncaptioned: ReplyMessage = { kind: 'voice', key: `${envelopeId}#voice` };
  if (answerPreview) return [...text, uncaptioned];
  // The caption is the text's one part, so it is claimed as that part.
  if (parts.length === 1 && (await channel.captionFits?.(parts[0]!))) return [{ kind: 'voice', key: `${envelopeId}#0`, caption: parts[0] }];
  return [uncaptioned, ...text];
}

/** Whether this message carries the reply's text to its end: the buttons go under it. */
export function endsText(message: ReplyMessage, parts: number): boolean {
  return message.kind === 'text' ? message.part === parts - 1 : message.caption !== undefined;
}

export interface SpokenDeps {
  media: MediaStore;
  log: Logger;
}

/**
 * Sends the voice message (its caption with it), or, when the voice cannot go, the caption as
 * text. Throws what the channel throws otherwise (the caller releases or completes the claim).
 */
export async function sendSpoken(
  message: Extract<ReplyMessage, { kind: 'voice' }>,
  voice: VoiceRef,
  target: ChannelTarget,
  channel: ChannelSender,
  opts: SendOptions,
  deps: SpokenDeps,
  ctx: Record<string, unknown>,
): Promise<SentMessage | void> {
  const asText = async (why: string): Promise<SentMessage | void> => {
    deps.log.warn(`voice not sent: ${why}; the reply goes as text`, { ...ctx, key: voice.key });
    if (message.caption !== undefined) return channel.sendText(target, message.caption, opts);
  };
  const stored = await deps.media.get(voice.key);
  if (!stored) return asText('nothing is kept at its key (never written, or expired)');
  if (stored.bytes.byteLength > VOICE_REPLY_MAX_BYTES)
    return asText(`it is ${stored.bytes.byteLength} bytes, over the ${VOICE_REPLY_MAX_BYTES} a voice reply may be`);
  try {
    return await channel.sendVoice!(
      target,
      { bytes: stored.bytes, durationSeconds: voice.durationSeconds, key: voice.key },
      { ...opts, caption: message.caption },
    );
  } catch (err) {
    if (err instanceof VoiceRefusedError) return asText('the chat takes no voice messages');
    throw err;
  }
}
