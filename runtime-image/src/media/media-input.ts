// What a message's attachments become for the model (#16). Each file is read from the media
// store (only under this agent's own in/ prefix) and copied into the workspace at
// inbox/<date>/<name>, so the agent's file tools reach it; then a photo goes to a model that
// takes images as an image, a voice message or audio file is transcribed where the agent has
// a transcriber (a round video message too), a video, animation or animated sticker is said
// to be one the agent cannot watch, and every file gets a line saying what it is and where it
// was saved. A failure with one file is said in its line; it never fails the turn.
import type { ImageContent } from '@mariozechner/pi-ai';
import { isOwnMediaKey, keySegment, type MediaRef } from '../../../shared/media/media-ref.ts';
import type { MediaStore } from '../../../shared/ports.ts';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import type { Transcriber } from './transcribe.ts';
import { quotedName, quoteLines } from '../framing/others-words.ts';

/** The largest image sent as one (Anthropic's per-image limit); a larger one is left to the file tools. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** Heard, where the agent has a transcriber: a round video message is someone talking to the camera. */
const SPOKEN = new Set<MediaRef['kind']>(['voice', 'audio', 'video_note']);
/** Seen only as moving pictures (a sticker that is a still image goes as an image). */
const MOVING = new Set<MediaRef['kind']>(['video', 'animation', 'sticker']);

export interface MediaInputDeps {
  agentId: string;
  workspace: string;
  /** Absent where the runtime has no media store: every attachment is then said not to have arrived. */
  store: MediaStore | undefined;
  /** Whether the model takes images. */
  imageInput: boolean;
  transcribe: Transcriber | undefined;
  /** Quote each transcript to the user at the top of the answer (tools.media.audio.echoTranscript). */
  echoTranscript?: boolean | undefined;
  /** The message is forwarded: what a voice message says is someone else's words, quoted as theirs (others-words.ts). */
  forwarded?: boolean | undefined;
  signal?: AbortSignal;
}

export interface MediaInput {
  /** One line per attachment, for the user message (and the transcript). */
  lines: string[];
  images: ImageContent[];
  /** What each voice message or audio file was heard to say. */
  transcripts: string[];
}

/** Each kind of attachment as the model is told of it ("The user sent a voice message"). */
export const MEDIA_WORDS: Record<MediaRef['kind'], string> = {
  photo: 'a photo',
  voice: 'a voice message',
  audio: 'an audio file',
  video_note: 'a round video message',
  video: 'a video',
  animation: 'an animation (GIF)',
  document: 'a file',
  sticker: 'a sticker',
};

/** `at` is the message's time (its envelope's ts), so a redelivered message lands in the same folder. */
export async function mediaInput(refs: MediaRef[], at: number, deps: MediaInputDeps): Promise<MediaInput> {
  const out: MediaInput = { lines: [], images: [], transcripts: [] };
  const day = new Date(at).toISOString().slice(0, 10);
  for (const ref of refs) out.lines.push(await one(ref, day, deps, out));
  return out;
}

async function one(ref: MediaRef, day: string, deps: MediaInputDeps, { images, transcripts }: MediaInput): Promise<string> {
  const what = `${MEDIA_WORDS[ref.kind]}${ref.fileName ? ` ${quotedName(ref.fileName)}` : ''}${ref.durationSeconds !== undefined ? ` (${ref.durationSeconds} s)` : ''}`;
  if (!deps.store) return `[The user sent ${what}. This runtime has no media store, so it did not reach you; say so if it matters.]`;
  // Defence in depth: the control plane writes only here, and only this agent may read here.
  if (!isOwnMediaKey(deps.agentId, ref.key, 'in')) return `[The user sent ${what}, but it was refused: it is not kept under this agent's own prefix.]`;
  let stored: { bytes: Uint8Array; mimeType: string } | undefined;
  try {
    stored = await deps.store.get(ref.key);
  } catch (err) {
    return `[The user sent ${what}, but it could not be read (${(err as Error).message.slice(0, 200)}); say so if it matters.]`;
  }
  if (!stored) return `[The user sent ${what}, but it is no longer kept (attachments expire); say so if it matters.]`;
  let path: string;
  try {
    path = await new WorkspaceDir(deps.workspace).createNew(`inbox/${day}/${keySegment(ref.fileName ?? ref.key.split('/').pop() ?? ref.kind)}`, stored.bytes);
  } catch (err) {
    return `[The user sent ${what}, but it could not be saved in your workspace (${(err as Error).message.slice(0, 200)}).]`;
  }
  const about = `${ref.mimeType}, ${stored.bytes.byteLength} bytes`;

  if (isImage(ref)) {
    if (deps.imageInput && stored.bytes.byteLength <= MAX_IMAGE_BYTES && IMAGE_TYPES.has(ref.mimeType)) {
      images.push({ type: 'image', data: Buffer.from(stored.bytes).toString('base64'), mimeType: ref.mimeType });
      return `[The user sent ${what}; it is attached as an image, and saved at ${path}.]`;
    }
    const why = deps.imageInput ? 'it is too large or of a type to send as an image' : 'this model cannot see images';
    return `[The user sent ${what} (${about}), saved at ${path}; ${why}, so you cannot see it — say so if it matters.]`;
  }
  if (isSpoken(ref)) {
    if (!deps.transcribe)
      return `[The user sent ${what} (${about}), saved at ${path}. It could not be transcribed: no transcription provider is configured (tools.media.audio); say so if it matters.]`;
    try {
      const text = await deps.transcribe({ bytes: stored.bytes, mimeType: ref.mimeType, fileName: path.split('/').pop()! }, deps.signal);
      transcripts.push(text);
      if (deps.forwarded) return [`[The user forwarded ${what}, saved at ${path}. Transcript, someone else's words:]`, ...quoteLines(text)].join('\n');
      return `[The user sent ${what}, saved at ${path}. Transcript:]\n${text}`;
    } catch (err) {
      return `[The user sent ${what} (${about}), saved at ${path}. It could not be transcribed (${(err as Error).message.slice(0, 300)}); say so if it matters.]`;
    }
  }
  // A video, an animation (GIF) or an animated sticker: no model here takes moving pictures, and
  // the file tools cannot show one either, so the agent is told plainly rather than sent to read it.
  if (isMoving(ref))
    return `[The user sent ${what} (${about}), saved at ${path} in your workspace; you cannot watch videos, animations or animated stickers, so say so if it matters.]`;
  return `[The user sent ${what} (${about}), saved at ${path} in your workspace; read it with your file tools.]`;
}

// A file sent "as a file" keeps Telegram's word "document", whatever it holds: what it is
// comes from its MIME type then, so a recording is heard and a video is not sent to be read.
function isSpoken(ref: MediaRef): boolean {
  return SPOKEN.has(ref.kind) || (ref.kind === 'document' && ref.mimeType.startsWith('audio/'));
}

function isMoving(ref: MediaRef): boolean {
  return MOVING.has(ref.kind) || (ref.kind === 'document' && ref.mimeType.startsWith('video/'));
}

function isImage(ref: MediaRef): boolean {
  return ref.kind === 'photo' || ((ref.kind === 'document' || ref.kind === 'sticker') && ref.mimeType.startsWith('image/'));
}
