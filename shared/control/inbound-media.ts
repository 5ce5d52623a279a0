// The webhook's media path (#16): the file a Telegram message carries is fetched through the
// account's bot (the token stays in the control plane) and kept in the media store under the
// receiving agent's own in/ prefix; the envelope then names it. A file over Telegram's 20 MB
// download limit, or one Telegram will not hand out, is not fetched: the agent gets a note
// and the user is told. A passing failure (network, Telegram's 5xx, the store) throws, so the
// update is answered 5xx and Telegram retries it; the key is the envelope's, so a retry
// writes the same object.
import { ClawfleetError } from '../errors.ts';
import { formatBytes } from '../format-bytes.ts';
import { inboundMediaKey, TELEGRAM_DOWNLOAD_LIMIT_BYTES, type MediaRef } from '../media/media-ref.ts';
import type { MediaStore, TelegramBots } from '../ports.ts';
import { attachmentOf } from '../telegram/attachment.ts';
import { attachmentWords } from '../telegram/media-note.ts';

export interface InboundMediaDeps {
  store: MediaStore;
  fetchFile: NonNullable<TelegramBots['fetchFile']>;
}

export type InboundMedia =
  /** The message carries no file (text, a location, a poll…). */
  | { kind: 'none' }
  /** `words`: what the file says in words the envelope's text can carry (a sticker's emoji), if anything. */
  | { kind: 'stored'; ref: MediaRef; words?: string | undefined }
  /** Not fetched, for good: the agent's note, and what the user is told. */
  | { kind: 'refused'; note: string; toUser: string };

export async function storeInboundMedia(
  message: unknown,
  where: { accountId: string; agentId: string; envelopeId: string },
  deps: InboundMediaDeps,
  limit = TELEGRAM_DOWNLOAD_LIMIT_BYTES,
): Promise<InboundMedia> {
  const file = attachmentOf(message);
  if (!file) return { kind: 'none' };
  const what = attachmentWords(message) ?? 'a file';
  const refuse = (why: string, toUser: string): InboundMedia => ({
    kind: 'refused',
    note: `[The user sent ${what}. It did not reach you: ${why}. Say so if it matters.]`,
    toUser,
  });
  const tooLarge = (size: number | undefined) =>
    refuse(
      `it is ${size !== undefined ? `${formatBytes(size)}, ` : ''}over the ${formatBytes(limit)} a Telegram bot may download`,
      `⚠️ That file${size !== undefined ? ` (${formatBytes(size)})` : ''} is over the ${formatBytes(limit)} a Telegram bot may download, so your agent did not get it. A smaller file, or a link to it, would reach it.`,
    );
  // Telegram declares the size: a file over the limit is not even asked for.
  if (file.size !== undefined && file.size > limit) return tooLarge(file.size);
  let fetched: { bytes: Uint8Array; filePath: string };
  try {
    fetched = await deps.fetchFile(where.accountId, file.fileId, limit);
  } catch (err) {
    if (err instanceof ClawfleetError && err.code === 'MEDIA_TOO_LARGE') return tooLarge(file.size);
    // Telegram refused for good (a bad or expired file id): retrying would not help.
    if (isPermanentTelegramRefusal(err))
      return refuse('Telegram would not hand the file out', '⚠️ Telegram would not hand that file to your agent; please send it again.');
    throw err;
  }
  const key = inboundMediaKey(where.agentId, where.envelopeId, file.kind === 'photo' ? (fetched.filePath.split('/').pop() ?? file.fileName) : file.fileName);
  await deps.store.put(key, fetched.bytes, file.mimeType);
  return {
    kind: 'stored',
    ...(file.emoji !== undefined ? { words: file.emoji } : {}),
    ref: {
      kind: file.kind,
      key,
      mimeType: file.mimeType,
      size: fetched.bytes.byteLength,
      ...(file.kind === 'document' || file.kind === 'audio' ? { fileName: file.fileName } : {}),
      ...(file.durationSeconds !== undefined ? { durationSeconds: file.durationSeconds } : {}),
      ...(file.width !== undefined ? { width: file.width } : {}),
      ...(file.height !== undefined ? { height: file.height } : {}),
    },
  };
}

/** A Bot API error that says the request itself is wrong (4xx other than 429): not worth a retry. */
function isPermanentTelegramRefusal(err: unknown): boolean {
  const e = err as { name?: string; errorCode?: number } | null;
  return e?.name === 'TelegramApiError' && typeof e.errorCode === 'number' && e.errorCode >= 400 && e.errorCode < 500 && e.errorCode !== 429;
}
