// Words in a Telegram message that its sender did not write, read into the message envelope
// (protocol 5) for the runtime to frame as someone else's (runtime-image/src/framing/others-words.ts):
// - a forwarded message's origin and words: forward_origin, or, from Bot API servers before
//   7.0, forward_from, forward_from_chat, forward_sender_name, forward_signature, forward_date;
// - the message a reply points to: in this chat (reply_to_message), in another
//   (external_reply), or a story (reply_to_story), and the part of it the user quoted (quote);
// - content in words: a poll, a contact card, a venue, a story, a game, a giveaway (and its
//   winners), a checklist, an invoice.
// Read leniently, as media notes are: an odd field is left out or cut, never a reason to refuse
// the update. Pure: no I/O.
import type { Forward, Origin, Quote, Shared } from '../protocol/envelopes.ts';
import { attachmentWords } from './media-note.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
/** A non-empty string, cut to `max` characters (a cut word is still theirs, and still framed). */
const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.slice(0, max) : undefined);
const list = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : []);
const seconds = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);

/** A person as Telegram names them: their name, and @username when they have one. */
function personName(u: Obj | undefined): string | undefined {
  if (!u) return undefined;
  const name = [str(u.first_name, 64), str(u.last_name, 64)].filter((p) => p !== undefined).join(' ');
  const handle = str(u.username, 64);
  if (name && handle) return `${name} (@${handle})`;
  return name || (handle ? `@${handle}` : undefined);
}

/** A chat's title, else its @username, else (a private chat) its person's name. */
function chatName(c: Obj | undefined): string | undefined {
  if (!c) return undefined;
  const handle = str(c.username, 64);
  return str(c.title, 128) ?? (handle ? `@${handle}` : personName(c));
}

function origin(kind: Origin['kind'], name: string | undefined, signature: unknown, date: unknown): Origin {
  const signed = str(signature, 128);
  const at = seconds(date);
  return { kind, name: name ?? '', ...(signed ? { signature: signed } : {}), ...(at ? { sentAt: at * 1000 } : {}) };
}

/** Telegram's MessageOrigin: who first sent a forwarded message, or whose message a reply in another chat points to. */
function originFrom(o: Obj): Origin {
  switch (o.type) {
    case 'user':
      return origin('user', personName(obj(o.sender_user)), undefined, o.date);
    case 'hidden_user':
      return origin('hidden_user', str(o.sender_user_name, 128), undefined, o.date);
    case 'chat':
      return origin('chat', chatName(obj(o.sender_chat)), o.author_signature, o.date);
    case 'channel':
      return origin('channel', chatName(obj(o.chat)), o.author_signature, o.date);
    default:
      // A type Telegram adds later: still someone else's words.
      return origin('unknown', undefined, undefined, o.date);
  }
}

/** Who first sent a forwarded message: forward_origin, or the fields Bot API servers before 7.0 sent instead. */
export function originOf(message: Obj): Origin | undefined {
  const o = obj(message.forward_origin);
  if (o) return originFrom(o);
  const chat = obj(message.forward_from_chat);
  if (chat) return origin(chat.type === 'channel' ? 'channel' : 'chat', chatName(chat), message.forward_signature, message.forward_date);
  const user = obj(message.forward_from);
  if (user) return origin('user', personName(user), undefined, message.forward_date);
  const hidden = str(message.forward_sender_name, 128);
  if (hidden) return origin('hidden_user', hidden, undefined, message.forward_date);
  return message.forward_date !== undefined ? origin('unknown', undefined, undefined, message.forward_date) : undefined;
}

/** A forwarded message's origin and words (its text, else its caption). */
export function forwardOf(message: Obj): Forward | undefined {
  const from = originOf(message);
  if (!from) return undefined;
  return { from, text: (str(message.text, 100_000) ?? str(message.caption, 100_000) ?? '').slice(0, 100_000) };
}

const lines = (...parts: (string | undefined)[]) => parts.filter((p) => p !== undefined).join('\n');

/** Each kind of content in words, and its words one item a line; undefined where the field is absent or holds none. */
const SHARED: { field: string; kind: Shared['kind']; read(v: Obj): Omit<Shared, 'kind'> | undefined }[] = [
  {
    field: 'poll',
    kind: 'poll',
    read: (p) => {
      const question = str(p.question, 300);
      const options = list(p.options, 20).flatMap((o) => str(obj(o)?.text, 100) ?? []);
      if (!question && options.length === 0) return undefined;
      const explanation = str(p.explanation, 200);
      return { text: lines(question, ...options.map((o) => `- ${o}`), str(p.description, 1024), explanation && `Explanation: ${explanation}`) };
    },
  },
  {
    field: 'contact',
    kind: 'contact',
    read: (c) => {
      const name = [str(c.first_name, 64), str(c.last_name, 64)].filter((p) => p !== undefined).join(' ');
      const phone = str(c.phone_number, 32);
      const vcard = str(c.vcard, 4096);
      if (!name && !phone && !vcard) return undefined;
      return { text: lines(name ? `Name: ${name}` : undefined, phone ? `Phone: ${phone}` : undefined, vcard && `vCard:\n${vcard}`) };
    },
  },
  {
    field: 'venue',
    kind: 'venue',
    read: (v) => {
      const title = str(v.title, 300);
      const address = str(v.address, 300);
      const at = obj(v.location);
      const where = typeof at?.latitude === 'number' && typeof at.longitude === 'number' ? `latitude ${at.latitude}, longitude ${at.longitude}` : undefined;
      return title || address ? { text: lines(title, address, where) } : undefined;
    },
  },
  {
    field: 'checklist',
    kind: 'checklist',
    read: (c) => {
      const tasks = list(c.tasks, 30).flatMap((t) => {
        const text = str(obj(t)?.text, 300);
        return text ? [`- ${seconds(obj(t)?.completion_date) ? '(done) ' : ''}${text}`] : [];
      });
      const title = str(c.title, 300);
      return title || tasks.length ? { text: lines(title, ...tasks) } : undefined;
    },
  },
  {
    field: 'game',
    kind: 'game',
    read: (g) => {
      const title = str(g.title, 300);
      return title ? { text: lines(title, str(g.description, 1024), str(g.text, 4096)) } : undefined;
    },
  },
  {
    field: 'giveaway',
    kind: 'giveaway',
    read: (g) => ({ text: lines(str(g.prize_description, 1024), seconds(g.winner_count) ? `${g.winner_count} winners` : undefined) }),
  },
  {
    field: 'giveaway_winners',
    kind: 'giveaway',
    read: (g) => {
      const winners = list(g.winners, 20).flatMap((w) => personName(obj(w)) ?? []);
      return { text: lines(str(g.prize_description, 1024), winners.length ? `Winners: ${winners.join(', ')}` : undefined), ...fromChat(g.chat) };
    },
  },
  {
    field: 'invoice',
    kind: 'invoice',
    read: (i) => {
      const title = str(i.title, 300);
      return title ? { text: lines(title, str(i.description, 1024)) } : undefined;
    },
  },
  // A story's words never reach the bot, only whose it is.
  { field: 'story', kind: 'story', read: (s) => ({ text: '', ...fromChat(s.chat) }) },
];

function fromChat(chat: unknown): { from?: string } {
  const name = chatName(obj(chat));
  return name ? { from: name.slice(0, 256) } : {};
}

/** The content in words a message (or the message a reply points to) carries, if any. */
export function sharedOf(message: Obj): Shared | undefined {
  for (const { field, kind, read } of SHARED) {
    const value = obj(message[field]);
    if (!value) continue;
    const words = read(value);
    if (words) return { kind, ...words };
  }
  return undefined;
}

/**
 * The message a reply points to, as the user saw it: who wrote it ("you": the bot itself,
 * marked `fromAgent`), what it said (the part the user quoted, when they did), what it
 * carries; in another chat, that chat and the message's origin.
 */
export function replyQuoteOf(message: Obj, botId: number | undefined): Quote | undefined {
  const selected = str(obj(message.quote)?.text, 4096);
  const part = selected ? { part: true as const } : {};
  const replied = obj(message.reply_to_message);
  if (replied) {
    const from = obj(replied.from);
    const own = from !== undefined && botId !== undefined && from.id === botId;
    const author = own ? 'you' : (str(from?.username, 256) ?? str(from?.first_name, 256));
    const text = selected ?? str(replied.text, 4096) ?? str(replied.caption, 4096);
    const shared = sharedOf(replied);
    const forwarded = originOf(replied);
    const what = text || shared ? undefined : attachmentWords(replied);
    if (!text && !shared && !what) return undefined;
    return {
      text: text ?? '',
      ...(author ? { author } : {}),
      ...(own ? { fromAgent: true as const } : {}),
      ...part,
      // A reply to a forwarded message points to its origin's words.
      ...(forwarded && !own ? { origin: forwarded } : {}),
      ...(shared ? { shared } : {}),
      ...(what ? { what: what.slice(0, 400) } : {}),
    };
  }
  const external = obj(message.external_reply);
  if (external) {
    const from = obj(external.origin);
    const chat = chatName(obj(external.chat));
    const shared = sharedOf(external);
    const what = shared ? undefined : attachmentWords(external);
    return {
      text: selected ?? '',
      ...part,
      ...(chat ? { chat: chat.slice(0, 256) } : {}),
      ...(from ? { origin: originFrom(from) } : {}),
      ...(shared ? { shared } : {}),
      ...(what ? { what: what.slice(0, 400) } : {}),
    };
  }
  const story = obj(message.reply_to_story);
  if (story) return { text: selected ?? '', ...part, shared: { kind: 'story', text: '', ...fromChat(story.chat) } };
  return undefined;
}
