// What a Telegram message without text carries, said in words for the agent. Attachments
// (photos, voice, files) do not reach the runtime yet: the control plane holds the bot
// token and the runtime must not. Rather than drop such a message — the user would hear
// nothing back — the agent gets a note saying what arrived, so it can answer in its own
// voice ("I can't see photos yet…"). What is fully said in words (a location, a contact,
// a poll) reaches it whole. Fields are read leniently: an odd one is left out, never refused.
import { z } from 'zod';

const num = z.number().finite();
const str = z.string().max(300);

/** Each kind of content Telegram may put on a message instead of text, and how to say it. */
const KINDS: [string, z.ZodType, (v: never) => string][] = [
  ['photo', z.array(z.object({ width: num, height: num })).min(1), (sizes: { width: number; height: number }[]) => {
    const largest = sizes.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    return `a photo (${largest.width}×${largest.height})`;
  }],
  ['voice', z.object({ duration: num }), (v: { duration: number }) => `a voice message (${v.duration} s)`],
  ['video_note', z.object({ duration: num }), (v: { duration: number }) => `a round video message (${v.duration} s)`],
  ['audio', z.object({ duration: num, title: str.optional(), performer: str.optional() }), (v: { duration: number; title?: string; performer?: string }) =>
    `an audio file${v.title ? ` "${v.title}"` : ''}${v.performer ? ` by ${v.performer}` : ''} (${v.duration} s)`],
  ['video', z.object({ duration: num, width: num, height: num }), (v: { duration: number; width: number; height: number }) => `a video (${v.width}×${v.height}, ${v.duration} s)`],
  ['animation', z.object({}), () => 'an animation (GIF)'],
  ['document', z.object({ file_name: str.optional(), mime_type: str.optional(), file_size: num.optional() }), (v: { file_name?: string; mime_type?: string; file_size?: number }) =>
    `a file${v.file_name ? ` "${v.file_name}"` : ''}${v.mime_type ? ` (${v.mime_type}${v.file_size !== undefined ? `, ${v.file_size} bytes` : ''})` : ''}`],
  ['sticker', z.object({ emoji: str.optional() }), (v: { emoji?: string }) => `a sticker${v.emoji ? ` ${v.emoji}` : ''}`],
];

/** Content that words carry whole: the agent gets it, not a note that it is missing. */
const WHOLE: [string, z.ZodType, (v: never) => string][] = [
  ['venue', z.object({ title: str, address: str, location: z.object({ latitude: num, longitude: num }) }), (v: { title: string; address: string; location: { latitude: number; longitude: number } }) =>
    `[The user shared a place: ${v.title}, ${v.address} (latitude ${v.location.latitude}, longitude ${v.location.longitude}).]`],
  ['location', z.object({ latitude: num, longitude: num }), (v: { latitude: number; longitude: number }) => `[The user shared a location: latitude ${v.latitude}, longitude ${v.longitude}.]`],
  ['contact', z.object({ first_name: str, last_name: str.optional(), phone_number: str }), (v: { first_name: string; last_name?: string; phone_number: string }) =>
    `[The user shared a contact: ${[v.first_name, v.last_name].filter(Boolean).join(' ')}, ${v.phone_number}.]`],
  ['poll', z.object({ question: str, options: z.array(z.object({ text: str })) }), (v: { question: string; options: { text: string }[] }) =>
    `[The user shared a poll: "${v.question}" — ${v.options.map((o) => `"${o.text}"`).join(', ')}.]`],
];

/**
 * The words for what a message carries besides text, or undefined when it carries nothing
 * an agent should hear about (a service message: someone joined, a pin, a title change).
 */
export function mediaNote(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  for (const [field, schema, say] of WHOLE) {
    const parsed = schema.safeParse(fields[field]);
    if (parsed.success) return say(parsed.data as never);
  }
  for (const [field, schema, say] of KINDS) {
    const parsed = schema.safeParse(fields[field]);
    if (parsed.success) return `[The user sent ${say(parsed.data as never)}. Attachments do not reach you yet, so you cannot see or hear it; say so if it matters.]`;
  }
  return undefined;
}
