// The kind of attachment a file is by its MIME type alone, for a file that arrives without
// Telegram's word on it (the dashboard's chat box): the kind Telegram's inbound path
// (shared/telegram/attachment.ts) gives the same bytes, so the agent is told the same thing.
import type { InboundMediaKind } from './media-ref.ts';

/** Images a model may be sent as one (what the runtime attaches as an image). */
const PICTURE = /^image\/(jpeg|png|gif|webp)$/;

/**
 * A picture is a photo (a GIF too: these are GIF bytes, which a vision model reads; Telegram
 * itself never delivers GIF bytes, it re-encodes them as an MP4 "animation"), Ogg audio a
 * voice message, other audio an audio file, any video a video (Telegram's video and
 * animation are both video/*: moving pictures the agent cannot watch), the rest a document.
 */
export function attachmentKindOf(mimeType: string): Extract<InboundMediaKind, 'photo' | 'voice' | 'audio' | 'video' | 'document'> {
  const type = mimeType.toLowerCase();
  if (PICTURE.test(type)) return 'photo';
  if (type === 'audio/ogg') return 'voice';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}
