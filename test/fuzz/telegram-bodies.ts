// Generated webhook bodies for fuzzing, from a seeded PRNG: valid updates (with odd unicode
// and hostile markup in every string), and the same broken every way a sender could break
// them — truncated, wrong types, huge, deeply nested, not JSON at all.
import type { Prng } from '../support/prng.ts';

export type BodyKind = 'valid' | 'truncated' | 'wrong type' | 'huge' | 'deeply nested' | 'garbage' | 'hostile keys' | 'not an update';
export const BODY_KINDS: readonly BodyKind[] = ['valid', 'truncated', 'wrong type', 'huge', 'deeply nested', 'garbage', 'hostile keys', 'not an update'];

const ODD = [
  '\u0000',
  '\u200b',
  '\u200e',
  '\u202e',
  '\ufeff',
  '\ufffd',
  '\ud83d\ude00',
  '\ud800',
  '\udfff',
  '👨‍👩‍👧‍👦',
  'é',
  'e\u0301',
  '\u{10ffff}',
  '\u2028',
  '\u2029',
  '\r\n',
  '\t',
  '\\',
  '"',
  "'",
  '`',
];
const HOSTILE = [
  '<script>alert(1)</script>',
  '</b><i>',
  '<a href="javascript:alert(1)">x</a>',
  '*bold* _it_ `code` [l](http://x)',
  '{{body.text}}',
  '${process.env}',
  '../../etc/passwd',
  '%s%n%x',
  "'; DROP TABLE sessions; --",
  'NO_REPLY',
  'HEARTBEAT_OK',
  '/start@fake_bot',
  '@fran_bot',
  'agent:grif:main',
  'tg.fran.1',
  '\u001b[31mred',
  '&lt;&amp;',
  '<b>unclosed',
];

export function oddText(r: Prng, maxLen = 200): string {
  const parts: string[] = [];
  const n = r.int(0, 12);
  for (let i = 0; i < n; i++) {
    const roll = r.next();
    if (roll < 0.3) parts.push(r.pick(ODD));
    else if (roll < 0.55) parts.push(r.pick(HOSTILE));
    else if (roll < 0.8) parts.push(String.fromCharCode(...Array.from({ length: r.int(1, 20) }, () => r.int(32, 126))));
    else
      parts.push(String.fromCodePoint(...Array.from({ length: r.int(1, 6) }, () => r.int(0, 0x10ffff)).map((c) => (c >= 0xd800 && c <= 0xdfff ? 0xfffd : c))));
  }
  return parts.join('').slice(0, maxLen);
}

function oddNumber(r: Prng): number {
  return r.pick([0, -1, 1, 7001, 2 ** 31, 2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e308, -1e308, 0.5, -0.0001, Number.MIN_VALUE, r.int(-1e9, 1e9)]);
}

function randomValue(r: Prng, depth = 0): unknown {
  switch (r.int(0, depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return oddNumber(r);
    case 3:
      return oddText(r);
    case 4:
      return r.pick(['', '0', 'true', 'null', '[]', '{}']);
    case 5:
      return Array.from({ length: r.int(0, 4) }, () => randomValue(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(0, 4) }, () => [oddText(r, 12) || 'k', randomValue(r, depth + 1)]));
  }
}

/** A plausible update: a private message from one of `senders` (or a stranger), maybe a group, a caption, entities. */
export function validUpdate(r: Prng, updateId: number, senders: readonly number[]): Record<string, unknown> {
  const from = r.chance(0.8) ? r.pick(senders) : r.int(1, 2 ** 40);
  const group = r.chance(0.15);
  const text = oddText(r, r.chance(0.05) ? 4096 : 300);
  const message: Record<string, unknown> = {
    message_id: r.int(1, 1e6),
    from: { id: from, is_bot: r.chance(0.05), first_name: oddText(r, 64) || 'A', ...(r.chance(0.5) ? { username: oddText(r, 32) } : {}), language_code: 'en' },
    chat: group ? { id: -r.int(1, 1e12), type: r.pick(['group', 'supergroup']), title: oddText(r, 128) } : { id: from, type: 'private', first_name: 'A' },
    date: r.int(0, 2_000_000_000),
  };
  if (r.chance(0.15)) message.caption = text;
  else if (r.chance(0.95)) message.text = text;
  if (r.chance(0.3))
    message.entities = Array.from({ length: r.int(1, 4) }, () => ({
      type: r.pick(['mention', 'bot_command', 'text_mention', 'bold', 'url']),
      offset: r.int(0, 400),
      length: r.int(0, 400),
      ...(r.chance(0.3) ? { user: { id: r.int(1, 1e9) } } : {}),
    }));
  if (group && r.chance(0.3)) Object.assign(message, { is_topic_message: true, message_thread_id: r.int(1, 1e6) });
  if (r.chance(0.1)) message.reply_to_message = { message_id: 1, from: { id: r.int(1, 1e10), is_bot: true, first_name: 'B' }, chat: message.chat, date: 1 };
  // Media without text: the control plane turns it into a note for the agent (shared/telegram/media-note.ts).
  if (r.chance(0.15)) {
    if (r.chance(0.5)) delete message.text;
    const media = r.pick([
      () => ({ photo: Array.from({ length: r.int(1, 4) }, () => ({ file_id: oddText(r, 20) || 'f', width: r.int(1, 5000), height: r.int(1, 5000) })) }),
      () => ({ voice: { file_id: 'v', duration: r.int(0, 3600) } }),
      () => ({ document: { file_id: 'd', file_name: oddText(r, 300), mime_type: oddText(r, 40), file_size: r.int(0, 2 ** 31) } }),
      () => ({ sticker: { file_id: 's', emoji: oddText(r, 4) } }),
      () => ({ location: { latitude: r.int(-90, 90) + r.next(), longitude: r.int(-180, 180) + r.next() } }),
      () => ({ contact: { first_name: oddText(r, 64) || 'C', phone_number: oddText(r, 20) } }),
      () => ({ poll: { question: oddText(r, 300), options: Array.from({ length: r.int(0, 10) }, () => ({ text: oddText(r, 100) })) } }),
    ]);
    Object.assign(message, media());
  }
  // A user's reaction (#31): odd emoji, custom, paid and unknown kinds, removals, anonymous actors.
  if (r.chance(0.08)) {
    const reaction = () =>
      r.pick([
        () => ({ type: 'emoji', emoji: r.pick(['👍', '❤', '🔥', '❤️', oddText(r, 20)]) }),
        () => ({ type: 'custom_emoji', custom_emoji_id: oddText(r, 20) }),
        () => ({ type: 'paid' }),
        () => ({ type: oddText(r, 12) }),
      ])();
    return {
      update_id: updateId,
      message_reaction: {
        chat: message.chat,
        message_id: r.int(1, 20),
        ...(r.chance(0.9) ? { user: message.from } : { actor_chat: { id: -r.int(1, 1e12), type: 'channel', title: oddText(r, 128) } }),
        date: message.date,
        old_reaction: Array.from({ length: r.int(0, 3) }, reaction),
        new_reaction: Array.from({ length: r.int(0, 20) }, reaction),
      },
    };
  }
  const kind = r.chance(0.9) ? 'message' : r.pick(['edited_message', 'channel_post', 'callback_query', 'my_chat_member']);
  return { update_id: updateId, [kind]: message };
}

/** Sets a random leaf (or branch) of `obj` to a value of another type. */
function breakType(r: Prng, obj: Record<string, unknown>): void {
  const paths: Array<[Record<string, unknown>, string]> = [];
  const walk = (o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      paths.push([o, k]);
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>);
    }
  };
  walk(obj);
  const [parent, key] = r.pick(paths);
  parent[key] = randomValue(r);
}

function nested(r: Prng, depth: number): string {
  const open = r.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const inner = `${open.repeat(depth)}1${close.repeat(depth)}`;
  return r.pick([
    `{"update_id":1,"message":${inner}}`,
    `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"x","from":${inner}}}`,
    inner,
    `{"update_id":1,"message":${open.repeat(depth)}`, // nested and truncated
  ]);
}

export interface FuzzBody {
  kind: BodyKind;
  body: string;
}

/** Huge bodies (up to 3 MB) cost the most time and are drawn a third as often as the rest. */
const DRAW: readonly BodyKind[] = BODY_KINDS.flatMap((k) => (k === 'huge' ? [k] : [k, k, k]));

export function fuzzBody(r: Prng, i: number, senders: readonly number[]): FuzzBody {
  const kind = r.pick(DRAW);
  const valid = validUpdate(r, i, senders);
  switch (kind) {
    case 'valid':
      return { kind, body: JSON.stringify(valid) };
    case 'truncated': {
      const s = JSON.stringify(valid);
      return { kind, body: s.slice(0, r.int(0, s.length - 1)) };
    }
    case 'wrong type':
      for (let n = r.int(1, 3); n > 0; n--) breakType(r, valid);
      return { kind, body: JSON.stringify(valid) };
    case 'huge': {
      const size = r.pick([100_001, 200_000, 1024 * 1024 - 200, 1024 * 1024 + 1, 3 * 1024 * 1024]);
      const m = (valid.message ?? Object.values(valid)[1]) as Record<string, unknown>;
      if (r.chance(0.5)) m.text = 'x'.repeat(size);
      else m.entities = Array.from({ length: Math.floor(size / 40) }, (_, k) => ({ type: 'bold', offset: k, length: 1 }));
      return { kind, body: JSON.stringify(valid) };
    }
    case 'deeply nested':
      return { kind, body: nested(r, r.pick([50, 1_000, 10_000, 100_000])) };
    case 'garbage':
      return {
        kind,
        body: r.pick([
          '',
          ' ',
          'null',
          'true',
          '0',
          '"update"',
          '[]',
          '{}',
          '\u0000',
          oddText(r, 500),
          Buffer.from(Array.from({ length: r.int(1, 200) }, () => r.int(0, 255))).toString('latin1'),
        ]),
      };
    case 'hostile keys':
      return {
        kind,
        body: JSON.stringify(valid).replace(
          '{',
          r.pick(['{"__proto__":{"polluted":true},', '{"constructor":{"prototype":{"polluted":true}},', '{"update_id":-1,', '{"toString":1,"valueOf":2,']),
        ),
      };
    case 'not an update':
      return { kind, body: JSON.stringify(randomValue(r)) };
  }
}
