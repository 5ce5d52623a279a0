// What an envelope says about a file it does not carry: where the bytes are kept (a key in
// the media store, under the agent's own prefix), what they are and how big. Bytes never ride
// in an envelope, and nothing here can name a bot token. Keys are the one shape both sides
// agree on, so the control plane can tell an agent's own prefix from another's by the key alone.
import * as z from '../zod.ts';

/** What Telegram lets a bot download (getFile): a larger file is answered with a note, not fetched. */
export const TELEGRAM_DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
/** What Telegram lets a bot upload (sendDocument and friends, multipart): a larger file is refused with a reason to the agent. */
export const TELEGRAM_UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

/** A spoken reply's audio at most (runtime-image/src/speech/): minutes of Ogg Opus speech are a few hundred KB; more is not speech. */
export const VOICE_REPLY_MAX_BYTES = 16 * 1024 * 1024;

/** How long attachments and sent files are kept unless `media.expireDays` says otherwise (the bucket's lifecycle rule; locally a sweep). */
export const MEDIA_EXPIRY_DAYS = 30;

/** The kinds of attachment that reach an agent as a file. */
export const INBOUND_MEDIA_KINDS = ['photo', 'voice', 'audio', 'video_note', 'video', 'animation', 'document', 'sticker'] as const;
export type InboundMediaKind = (typeof INBOUND_MEDIA_KINDS)[number];
/** The kinds of file an agent may send (sendPhoto, sendDocument, sendVoice, sendAudio, sendVideo, sendAnimation). */
export const OUTBOUND_FILE_KINDS = ['photo', 'document', 'voice', 'audio', 'video', 'animation'] as const;
export type OutboundFileKind = (typeof OUTBOUND_FILE_KINDS)[number];

/** A key's segments: no "..", no empty part, no characters a path or URL would read specially. */
const KEY_PATTERN = /^agents\/[a-z][a-z0-9-]{0,23}\/(in|out)\/[A-Za-z0-9._-]{1,200}(\/[A-Za-z0-9._-]{1,200}){0,3}$/;
export const MediaKeySchema = z.string().check(
  z.maxLength(512),
  z.regex(KEY_PATTERN, 'must be a media key like "agents/<id>/in/<name>"'),
  z.refine((k) => !k.split('/').some((p) => p === '.' || p === '..'), 'must not contain "." or ".." segments'),
);
const MimeSchema = z.string().check(z.maxLength(128), z.regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i, 'must be a MIME type like "image/jpeg"'));
/** A file name as the user or the agent gave it: shown, never used as a path. */
export const FileNameSchema = z.string().check(z.minLength(1), z.maxLength(255));

/** One attachment of an inbound message, kept in the media store. */
export const MediaRefSchema = z.strictObject({
  kind: z.enum(INBOUND_MEDIA_KINDS),
  key: MediaKeySchema,
  mimeType: MimeSchema,
  size: z.number().check(z.int(), z.nonnegative()),
  fileName: z.optional(FileNameSchema),
  durationSeconds: z.optional(z.number().check(z.nonnegative())),
  width: z.optional(z.number().check(z.int(), z.nonnegative())),
  height: z.optional(z.number().check(z.int(), z.nonnegative())),
});
export type MediaRef = z.infer<typeof MediaRefSchema>;

/** The agent's own prefix for a direction: the only keys it may read (in, out) or write (out). */
export function mediaPrefix(agentId: string, direction: 'in' | 'out'): string {
  return `agents/${agentId}/${direction}/`;
}

/** Whether a key is under the agent's own prefix for that direction (and well formed). */
export function isOwnMediaKey(agentId: string, key: string, direction: 'in' | 'out'): boolean {
  return MediaKeySchema.safeParse(key).success && key.startsWith(mediaPrefix(agentId, direction));
}

/** A name safe as one key segment, keeping the extension where there is one. */
export function keySegment(name: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-120);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/** Where an inbound message's attachment is kept: under the receiving agent's `in/` prefix, named by the envelope, so a retried update writes the same key. */
export function inboundMediaKey(agentId: string, envelopeId: string, fileName: string): string {
  return `${mediaPrefix(agentId, 'in')}${keySegment(envelopeId)}/${keySegment(fileName)}`;
}

/** Where a file the agent sends is kept: under its own `out/` prefix, named by the request's id. */
export function outboundMediaKey(agentId: string, requestId: string, fileName: string): string {
  return `${mediaPrefix(agentId, 'out')}${keySegment(requestId)}/${keySegment(fileName)}`;
}
