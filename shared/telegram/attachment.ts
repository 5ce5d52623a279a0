// The one file a Telegram message carries (a photo, voice message, audio, video, round video,
// animation, document or sticker), read leniently from the raw message: its file id, what
// Telegram says of its size and type, and the name it should have. Pure; the control plane's
// inbound media path (shared/control/inbound-media.ts) fetches and stores it.
import * as z from '../zod.ts';
import type { InboundMediaKind } from '../media/media-ref.ts';

export interface Attachment {
  kind: InboundMediaKind;
  fileId: string;
  /** As Telegram declares it; absent for some old files. */
  size: number | undefined;
  mimeType: string;
  /** The user's name for a document or audio file; else made from the kind. */
  fileName: string;
  durationSeconds?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
  /** A sticker's emoji: what the sticker says, in words an agent reads whatever it can see. */
  emoji?: string | undefined;
}

const num = z.catch(z.optional(z.number().check(z.nonnegative())), undefined);
const str = z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(255))), undefined);
const FileSchema = z.object({
  file_id: z.string().check(z.minLength(1), z.maxLength(512)),
  file_size: num,
  mime_type: str,
  file_name: str,
  duration: num,
  width: num,
  height: num,
  is_animated: z.catch(z.optional(z.boolean()), undefined),
  is_video: z.catch(z.optional(z.boolean()), undefined),
  emoji: z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(32))), undefined),
});
type TgFile = z.infer<typeof FileSchema>;

/** Each kind: where it sits on the message, its usual type and file name when Telegram gives none. */
const KINDS: { kind: InboundMediaKind; mime(f: TgFile): string; name: string | ((f: TgFile) => string) }[] = [
  { kind: 'voice', mime: (f) => f.mime_type ?? 'audio/ogg', name: 'voice.ogg' },
  { kind: 'audio', mime: (f) => f.mime_type ?? 'audio/mpeg', name: 'audio.mp3' },
  { kind: 'video_note', mime: () => 'video/mp4', name: 'round-video.mp4' },
  { kind: 'animation', mime: (f) => f.mime_type ?? 'video/mp4', name: 'animation.mp4' },
  { kind: 'video', mime: (f) => f.mime_type ?? 'video/mp4', name: 'video.mp4' },
  { kind: 'document', mime: (f) => f.mime_type ?? 'application/octet-stream', name: 'file' },
  {
    kind: 'sticker',
    mime: (f) => (f.is_video ? 'video/webm' : f.is_animated ? 'application/x-tgsticker' : 'image/webp'),
    name: (f) => (f.is_video ? 'sticker.webm' : f.is_animated ? 'sticker.tgs' : 'sticker.webp'),
  },
];

/** The message's file, or undefined when it carries none (or none that reads as one). */
export function attachmentOf(message: unknown): Attachment | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  const photo = largestPhoto(fields.photo);
  if (photo)
    return {
      kind: 'photo',
      fileId: photo.file_id,
      size: photo.file_size,
      mimeType: 'image/jpeg',
      fileName: 'photo.jpg',
      width: photo.width,
      height: photo.height,
    };
  for (const { kind, mime, name } of KINDS) {
    // An animation also comes with a document field (for old clients): the animation wins, being first.
    const parsed = FileSchema.safeParse(fields[kind]);
    if (!parsed.success) continue;
    const f = parsed.data;
    return {
      kind,
      fileId: f.file_id,
      size: f.file_size,
      mimeType: mime(f),
      fileName: f.file_name ?? (typeof name === 'string' ? name : name(f)),
      ...(f.duration !== undefined ? { durationSeconds: f.duration } : {}),
      ...(f.width !== undefined ? { width: Math.round(f.width) } : {}),
      ...(f.height !== undefined ? { height: Math.round(f.height) } : {}),
      ...(kind === 'sticker' && f.emoji !== undefined ? { emoji: f.emoji } : {}),
    };
  }
  return undefined;
}

/** Telegram sends each photo in several sizes; the largest is the one worth looking at. */
function largestPhoto(value: unknown): TgFile | undefined {
  if (!Array.isArray(value)) return undefined;
  let best: TgFile | undefined;
  for (const size of value.slice(0, 50)) {
    const parsed = FileSchema.safeParse(size);
    if (!parsed.success) continue;
    const area = (s: TgFile) => (s.width ?? 0) * (s.height ?? 0);
    if (!best || area(parsed.data) > area(best)) best = parsed.data;
  }
  return best;
}
