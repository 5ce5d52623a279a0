// What a Telegram message without text carries, said in words for the agent. Where the
// control plane has no media store (#16), or a file could not be fetched (over Telegram's
// 20 MB download limit), the file does not reach the runtime: rather than drop such a
// message — the user would hear nothing back — the agent gets a note saying what arrived,
// so it can answer in its own voice. A location, said in numbers, reaches it whole; content
// in words someone else wrote (a poll, a contact, a place) travels in the envelope's `shared`
// (others-words.ts), and is said here only when it came too odd to read. Fields are read
// leniently: a detail that is odd (too long, the wrong type) is left out of the note, never a
// reason to drop the note. Names in it (a file's, an audio's title) are put on one line
// (oneLine), so none can end the note's brackets.
import * as z from '../zod.ts';
import { oneLine } from '../one-line.ts';

/** A detail worth saying, or nothing: never fails the object it sits in. */
const num = z.catch(z.optional(z.number()), undefined);
const str = z.catch(z.optional(z.pipe(z.string().check(z.maxLength(300)), z.transform(oneLine))), undefined);
const object = <T extends z.core.$ZodShape>(shape: T) => z.catch(z.object(shape), () => ({}) as z.infer<z.ZodMiniObject<T>>);

// (zod's numbers are finite: Infinity and NaN fail like any other non-number.)
const PhotoSize = z.object({ width: z.number(), height: z.number() });
const PhotoSizes = z.catch(
  z.pipe(
    z.array(z.unknown()).check(z.maxLength(50)),
    z.transform((sizes) => sizes.flatMap((s) => PhotoSize.safeParse(s).data ?? [])),
  ),
  [],
);

const Audio = object({ duration: num, title: str, performer: str });
const Video = object({ duration: num, width: num, height: num });
const Document = object({ file_name: str, mime_type: str, file_size: num });
const seconds = (d: number | undefined) => (d !== undefined ? ` (${d} s)` : '');

/** Each kind of content Telegram may put on a message instead of text, and how to say it. */
const KINDS: { field: string; say(value: unknown): string }[] = [
  {
    field: 'photo',
    say: (v) => {
      const sizes = PhotoSizes.parse(v);
      const largest = sizes.reduce<{ width: number; height: number } | undefined>((a, b) => (!a || b.width * b.height > a.width * a.height ? b : a), undefined);
      return `a photo${largest ? ` (${largest.width}×${largest.height})` : ''}`;
    },
  },
  { field: 'voice', say: (v) => `a voice message${seconds(Audio.parse(v).duration)}` },
  { field: 'video_note', say: (v) => `a round video message${seconds(Video.parse(v).duration)}` },
  {
    field: 'audio',
    say: (v) => {
      const a = Audio.parse(v);
      return `an audio file${a.title ? ` "${a.title}"` : ''}${a.performer ? ` by ${a.performer}` : ''}${seconds(a.duration)}`;
    },
  },
  {
    field: 'video',
    say: (v) => {
      const m = Video.parse(v);
      const parts = [
        m.width !== undefined && m.height !== undefined ? `${m.width}×${m.height}` : undefined,
        m.duration !== undefined ? `${m.duration} s` : undefined,
      ].filter(Boolean);
      return `a video${parts.length ? ` (${parts.join(', ')})` : ''}`;
    },
  },
  { field: 'animation', say: () => 'an animation (GIF)' },
  {
    field: 'document',
    say: (v) => {
      const d = Document.parse(v);
      const about = [d.mime_type, d.file_size !== undefined ? `${d.file_size} bytes` : undefined].filter(Boolean);
      return `a file${d.file_name ? ` "${d.file_name}"` : ''}${about.length ? ` (${about.join(', ')})` : ''}`;
    },
  },
  {
    field: 'sticker',
    say: (v) => {
      const { emoji } = object({ emoji: str }).parse(v);
      return `a sticker${emoji ? ` ${emoji}` : ''}`;
    },
  },
  // What `shared` carries in words (others-words.ts), or words would carry whole (below), when it came too odd to repeat.
  { field: 'venue', say: () => 'a place' },
  { field: 'location', say: () => 'a location' },
  { field: 'contact', say: () => 'a contact' },
  { field: 'poll', say: () => 'a poll' },
];

const Coordinates = z.object({ latitude: z.number(), longitude: z.number() });

/** Content that words carry whole: the agent gets it, not a note that it is missing. Only when it is all there. */
const WHOLE: { field: string; schema: z.ZodMiniType; say(value: never): string }[] = [
  {
    field: 'location',
    schema: Coordinates,
    say: (v: z.infer<typeof Coordinates>) => `[The user shared a location: latitude ${v.latitude}, longitude ${v.longitude}.]`,
  },
];

/**
 * The words for what a message carries besides text, or undefined when it carries nothing
 * an agent should hear about (a service message: someone joined, a pin, a title change).
 */
export function mediaNote(message: unknown, whyNot = 'Attachments do not reach you yet, so you cannot see or hear it'): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  for (const { field, schema, say } of WHOLE) {
    const parsed = schema.safeParse(fields[field]);
    if (parsed.success) return say(parsed.data as never);
  }
  const what = attachmentWords(fields);
  return what === undefined ? undefined : `[The user sent ${what}. ${whyNot}; say so if it matters.]`;
}

/** "a photo (1280×720)", "a file "report.pdf" (application/pdf, 1200 bytes)": what the message carries, or undefined. */
export function attachmentWords(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  for (const { field, say } of KINDS) {
    if (fields[field] !== undefined && fields[field] !== null) return say(fields[field]);
  }
  return undefined;
}
