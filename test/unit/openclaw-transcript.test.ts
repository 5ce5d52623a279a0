// OpenClaw sessions as clawfleet sees them (cli/openclaw/session-keys.ts, transcript.ts):
// which session key each becomes, and what the next turn's model sees — the active branch,
// the latest compaction's summary and the turns it kept, messages only when they form a
// finished exchange. Events are shaped as OpenClaw 2026.9.6 writes them (see the
// state-entries fixture, made by OpenClaw itself).
import { describe, expect, it } from 'vitest';
import { mapSessionKey } from '../../cli/openclaw/session-keys.ts';
import { convertTranscript } from '../../cli/openclaw/openclaw-transcript.ts';
import { historyOf, turnMessages } from '../../runtime-image/src/session/transcript-store.ts';
import type { TurnRecord } from '../../shared/workspace/transcript-entry.ts';

describe('OpenClaw session keys in clawfleet', () => {
  const map = (key: string, raw = 'mara', id = 'mara', accounts = new Map<string, string>()) => mapSessionKey(key, raw, id, accounts);

  it('maps the main session and the Telegram shapes one to one, direct becoming dm', () => {
    expect(map('agent:mara:main')).toEqual({ key: 'agent:mara:main' });
    expect(map('agent:mara:direct:42')).toEqual({ key: 'agent:mara:dm:42' });
    expect(map('agent:mara:dm:42')).toEqual({ key: 'agent:mara:dm:42' });
    expect(map('agent:mara:telegram:direct:4242')).toEqual({ key: 'agent:mara:telegram:dm:4242' });
    expect(map('agent:mara:telegram:biz:direct:7', 'mara', 'mara', new Map([['biz', 'biz']]))).toEqual({ key: 'agent:mara:telegram:biz:dm:7' });
    expect(map('agent:mara:telegram:group:-1001234567890')).toEqual({ key: 'agent:mara:telegram:group:-1001234567890' });
    expect(map('agent:mara:telegram:group:-1001234567890:topic:3')).toEqual({ key: 'agent:mara:telegram:group:-1001234567890:topic:3' });
  });

  it('puts the agent’s clawfleet id in the key when OpenClaw spelt it otherwise, and scopes cron and hook sessions to it', () => {
    expect(map('agent:Mara_Bot:main', 'Mara_Bot', 'mara-bot')).toEqual({ key: 'agent:mara-bot:main' });
    expect(map('cron:Daily Brief', 'mara', 'mara')).toEqual({ key: 'agent:mara:cron:daily-brief' });
    expect(map('hook:8f2c', 'mara', 'mara')).toEqual({ key: 'agent:mara:hook:8f2c' });
  });

  it('maps nothing clawfleet would never route to, saying why', () => {
    expect(map('agent:mara:whatsapp:direct:+15550100')).toEqual({ none: 'a "whatsapp" session (clawfleet has Telegram only)' });
    expect(map('agent:mara:telegram:direct:4242:thread:99')).toMatchObject({ none: expect.stringMatching(/thread/) });
    expect(map('agent:mara:subagent:abc')).toEqual({ none: 'a subagent session' });
    expect(map('agent:ops:main')).toMatchObject({ none: expect.stringMatching(/agent "ops"/) });
    expect(map(`agent:mara:telegram:direct:${'9'.repeat(130)}`)).toMatchObject({ none: expect.stringMatching(/128 characters/) });
  });
});

const usage = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  reasoningTokens: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
let seq = 0;
const header = { type: 'session', version: 4, id: 'S1', timestamp: '2026-12-01T02:56:13.218Z', cwd: '/x' };
function user(id: string, parentId: string | null, text: string) {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: '2026-12-01T02:56:15.288Z',
    message: { role: 'user', content: text, timestamp: 1_000 + seq++, __openclaw: { senderIsOwner: true }, idempotencyKey: `${id}:user` },
  };
}
function assistant(id: string, parentId: string, text: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: '2026-12-01T02:56:16.000Z',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text }],
      api: 'openai-completions',
      provider: 'openai',
      model: 'gpt-5.4-mini',
      usage,
      stopReason: 'stop',
      timestamp: 1_000 + seq++,
      ...extra,
    },
  };
}
const meta = [
  { type: 'model_change', provider: 'openai', modelId: 'gpt-5.4-mini', id: 'm0', parentId: null, timestamp: '2026-12-01T02:56:13.246Z' },
  { type: 'thinking_level_change', thinkingLevel: 'medium', id: 'm1', parentId: 'm0', timestamp: '2026-12-01T02:56:14.590Z' },
];

const turns = (entries: ReturnType<typeof convertTranscript>['entries']) => entries.filter((e): e is TurnRecord => e.kind !== 'compaction');

describe('an OpenClaw transcript in clawfleet', () => {
  it('keeps each finished exchange as its messages, without OpenClaw’s private fields', () => {
    const t = convertTranscript(
      [
        header,
        ...meta,
        user('u1', 'm1', 'My sister lives in Lisbon.'),
        assistant('a1', 'u1', 'Noted.'),
        { type: 'custom', customType: 'openclaw:bootstrap-context:full', data: {}, id: 'c1', parentId: 'a1' },
      ],
      'S1',
    );
    expect(t.turns).toBe(1);
    const [turn] = turns(t.entries);
    expect(turn).toMatchObject({ inboundId: 'openclaw.S1.u1', input: 'My sister lives in Lisbon.', reply: 'Noted.' });
    expect(turn!.messages).toHaveLength(2);
    expect(JSON.stringify(turn)).not.toMatch(/__openclaw|idempotencyKey/);
    expect(turnMessages(turn!)[0]).toMatchObject({ role: 'user', content: 'My sister lives in Lisbon.' });
  });

  it('follows the active branch from the last entry, leaving a rewound branch behind', () => {
    const events = [
      header,
      ...meta,
      user('u1', 'm1', 'first'),
      assistant('a1', 'u1', 'one'),
      user('u2', 'a1', 'abandoned'),
      assistant('a2', 'u2', 'two'),
      user('u3', 'a1', 'rewritten'),
      assistant('a3', 'u3', 'three'),
    ];
    expect(turns(convertTranscript(events, 'S1').entries).map((x) => x.input)).toEqual(['first', 'rewritten']);
  });

  it('carries the latest compaction: the summary, then the turns it kept, as the runtime reads them', () => {
    const events = [
      header,
      ...meta,
      user('u1', 'm1', 'old one'),
      assistant('a1', 'u1', 'r1'),
      user('u2', 'a1', 'old two'),
      assistant('a2', 'u2', 'r2'),
      user('u3', 'a2', 'kept'),
      assistant('a3', 'u3', 'r3'),
      {
        type: 'compaction',
        id: 'c1',
        parentId: 'a3',
        timestamp: '2026-12-01T03:00:00.000Z',
        summary: 'Sam talked about Lisbon.',
        firstKeptEntryId: 'u3',
        tokensBefore: 9000,
      },
      user('u4', 'c1', 'after'),
      assistant('a4', 'u4', 'r4'),
    ];
    const t = convertTranscript(events, 'S1');
    expect(t.summarized).toBe(true);
    expect(t.entries.map((e) => (e.kind === 'compaction' ? `[${e.summary}]` : e.input))).toEqual([
      'old one',
      'old two',
      '[Sam talked about Lisbon.]',
      'kept',
      'after',
    ]);
    const history = historyOf(t.entries);
    expect(history.summary).toBe('Sam talked about Lisbon.');
    expect(history.turns.map((x) => x.input)).toEqual(['kept', 'after']);
  });

  it('keeps the turns before a reset in the file but out of the next turn’s context', () => {
    const events = [
      header,
      ...meta,
      user('u1', 'm1', 'before'),
      assistant('a1', 'u1', 'r1'),
      { type: 'reset', id: 'r', parentId: 'a1', timestamp: '2026-12-01T03:00:00.000Z' },
      user('u2', 'r', 'fresh'),
      assistant('a2', 'u2', 'r2'),
    ];
    const t = convertTranscript(events, 'S1');
    expect(t.reset).toBe(true);
    expect(historyOf(t.entries)).toMatchObject({ summary: '', turns: [{ input: 'fresh' }] });
  });

  it('keeps an unfinished exchange (a tool call without its result, an aborted answer) as text only', () => {
    const call = {
      type: 'message',
      id: 'a1',
      parentId: 'u1',
      message: {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'call_1', name: 'exec', arguments: { command: 'ls' } }],
        api: 'openai-completions',
        provider: 'openai',
        model: 'm',
        usage,
        stopReason: 'toolUse',
        timestamp: 5,
      },
    };
    const aborted = assistant('a2', 'u2', 'half an ans', { stopReason: 'aborted' });
    const t = convertTranscript([header, user('u1', null, 'list files'), call, user('u2', 'a1', 'and now?'), aborted], 'S1');
    expect(t.textOnly).toBe(2);
    expect(turns(t.entries).map((x) => [x.input, x.reply, x.messages])).toEqual([
      ['list files', undefined, undefined],
      ['and now?', 'half an ans', undefined],
    ]);
  });

  it('names an image instead of carrying nothing, and drops a NO_REPLY answer', () => {
    const withImage = {
      ...user('u1', null, ''),
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        ],
        timestamp: 7,
      },
    };
    const t = convertTranscript([header, withImage, assistant('a1', 'u1', 'NO_REPLY')], 'S1');
    expect(turns(t.entries)[0]).toMatchObject({ input: 'look\n[image]' });
    expect(turns(t.entries)[0]!.reply).toBeUndefined();
  });

  it('survives what it cannot read: no header, a loop in the parent links, junk', () => {
    const loop = [{ ...user('u1', 'a1', 'round') }, assistant('a1', 'u1', 'and round')];
    expect(convertTranscript([null, 'junk', 42, ...loop], 'S1').turns).toBeLessThanOrEqual(1);
    expect(convertTranscript([], 'S1')).toMatchObject({ turns: 0, entries: [] });
  });
});
