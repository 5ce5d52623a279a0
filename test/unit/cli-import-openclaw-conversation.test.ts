// The OpenClaw importer carries the conversation settings (streaming, block chunks, ack
// reaction and its scope, reply threading, native commands) per channel and per account, and
// names every value clawfleet cannot honour with its path and why; the result always validates.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { importOpenclaw } from '../../cli/import-openclaw.ts';
import { convertOpenclaw } from '../../cli/openclaw/convert.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openclaw');

function convert(file: string) {
  const lines: string[] = [];
  const result = importOpenclaw(join(FIXTURES, file), { fleet: 'imported' }, { err: (t) => lines.push(t) });
  return { config: parseConfig(JSON.parse(result.text)), report: lines.join('\n'), valid: result.valid };
}

describe('import-openclaw: the conversation settings', () => {
  it('maps each key at channel and account level, and reports what clawfleet cannot do', () => {
    const { config, report, valid } = convert('conversation.json5');
    expect(valid).toBe(true);
    const telegram = config.channels.telegram!;
    expect(telegram).toMatchObject({
      streaming: 'partial',
      // agents.defaults.blockStreamingChunk, maxChars held to Telegram's 4000.
      blockStreamingChunk: { minChars: 300, maxChars: 4000 },
      ackReaction: '🔥',
      ackReactionScope: 'all',
      replyToMode: 'first',
      commands: { native: true },
    });
    expect(telegram.accounts).toEqual({
      default: { botTokenSecret: 'TELEGRAM_BOT_TOKEN' },
      // block.enabled wins over the preview mode "off".
      work: { botTokenSecret: 'TELEGRAM_WORK_BOT_TOKEN', streaming: 'block', ackReaction: '', replyToMode: 'all', commands: { native: false } },
      rotating: { botTokenSecret: 'TELEGRAM_ROTATING_BOT_TOKEN', streaming: 'block', blockStreamingChunk: { minChars: 100, maxChars: 600 } },
      // progress with its tool lines (clawfleet's status has them); a non-emoji reaction is dropped: the account inherits the channel's.
      status: { botTokenSecret: 'TELEGRAM_STATUS_BOT_TOKEN', streaming: 'progress' },
    });
    for (const line of [
      /agents\.defaults\.blockStreamingChunk\.breakPreference: "sentence" is not supported/,
      /agents\.defaults\.blockStreamingChunk\.maxChars: 5000 is over Telegram's 4000-character message/,
      /agents\.defaults\.blockStreamingCoalesce: not supported/,
      /agents\.defaults\.humanDelay: not supported/,
      /messages\.queue: no clawfleet equivalent/,
      /^ {2}commands\.nativeSkills: skills are not offered as Telegram commands/m,
      /^ {2}commands\.bash: no clawfleet equivalent/m,
      /channels\.telegram\.streaming\.chunkMode: clawfleet always splits a long reply/,
      /channels\.telegram\.streaming\.preview\.toolProgress: clawfleet shows no tool-progress lines in an answer's draft \(streaming "progress" shows them/,
      /channels\.telegram\.accounts\.work\.streaming\.block\.coalesce: not supported/,
      /channels\.telegram\.accounts\.work\.commands\.nativeSkills: skills are not offered/,
      /channels\.telegram\.accounts\.rotating\.streaming\.mode: OpenClaw's "block" preview .* is clawfleet's "block"/,
      /channels\.telegram\.accounts\.rotating\.replyToMode: "batched" threads a reply only to a burst/,
      /channels\.telegram\.accounts\.status\.ackReaction: "not one emoji but a sentence" is not one reaction emoji/,
    ])
      expect(report).toMatch(line);
    // progress.toolProgress: true is what clawfleet's status does: nothing to report.
    expect(report).not.toMatch(/accounts\.status\.streaming/);
    // Nothing of the conversation is left under the generic "no equivalent" reasons.
    expect(report).not.toMatch(/(streaming|ackReaction|replyToMode|commands): (per-account )?Telegram setting with no clawfleet equivalent/);
    expect(report).not.toMatch(/^ {2}(messages|commands): no clawfleet equivalent/m);
  });

  it('applies the fleet-wide settings and reads the legacy spellings', () => {
    const { config, report, valid } = convert('conversation-fleet-wide.json5');
    expect(valid).toBe(true);
    const telegram = config.channels.telegram!;
    // blockStreamingDefault "on" with no preview mode; ackReactionScope "off" is ackReaction "".
    expect(telegram).toMatchObject({ streaming: 'block', ackReaction: '', commands: { native: false } });
    expect(telegram.ackReactionScope).toBeUndefined();
    expect(telegram.accounts).toEqual({
      default: { botTokenSecret: 'TELEGRAM_BOT_TOKEN' },
      // An explicit preview mode other than off turns inherited block streaming off.
      legacy: { botTokenSecret: 'TELEGRAM_LEGACY_BOT_TOKEN', streaming: 'partial' },
      // streaming: false is mode "off", which leaves the fleet's block streaming on.
      quiet: { botTokenSecret: 'TELEGRAM_QUIET_BOT_TOKEN', streaming: 'block' },
      party: { botTokenSecret: 'TELEGRAM_PARTY_BOT_TOKEN' },
    });
    expect(report).toMatch(/channels\.telegram\.accounts\.legacy: the legacy streamMode spelling is read as streaming\.mode "partial"/);
    expect(report).toMatch(/channels\.telegram: agents\.defaults\.blockStreamingDefault "on" is streaming "block" here/);
    expect(report).toMatch(/agents\.defaults\.blockStreamingBreak: "message_end" is not supported/);
    expect(report).toMatch(/messages\.ackReaction: messages\.ackReactionScope is off/);
    expect(report).toMatch(/channels\.telegram\.accounts\.party\.ackReaction: messages\.ackReactionScope is off/);
  });

  it('takes "progress" and names each of its options clawfleet’s fixed status does not honour', () => {
    const { config, notConverted } = convertOpenclaw(
      { channels: { telegram: { botToken: '${BOT}', streaming: { mode: 'progress', progress: { toolProgress: false, label: 'Busy', maxLines: 4 } } } } },
      { fleet: 'f' },
    );
    expect(parseConfig(config).channels.telegram!.streaming).toBe('progress');
    expect(notConverted.map((n) => n.path).sort()).toEqual([
      'channels.telegram.streaming.progress.label',
      'channels.telegram.streaming.progress.maxLines',
      'channels.telegram.streaming.progress.toolProgress',
    ]);
    expect(notConverted[0]!.reason).toMatch(/clawfleet's progress status is fixed/);
  });

  it("keeps OpenClaw's defaults where clawfleet's differ, and says so", () => {
    const { config, notes, notConverted } = convertOpenclaw({ channels: { telegram: { botToken: '${BOT}' } } }, { fleet: 'f' });
    const telegram = parseConfig(config).channels.telegram!;
    expect(telegram.ackReactionScope).toBe('group-mentions');
    expect(telegram.streaming).toBe('progress');
    expect(notes.join('\n')).toMatch(
      /OpenClaw's Telegram default is "progress" \(a status draft of the work, then the answer\), written as streaming "progress"/,
    );
    expect(notes.join('\n')).toMatch(/ackReactionScope "group-mentions", OpenClaw's default/);
    expect(notConverted).toEqual([]);
  });

  it("reacts with the account owner's identity emoji where no ackReaction is set, as OpenClaw does, if Telegram takes it", () => {
    const input = (messages?: object) => ({
      ...(messages ? { messages } : {}),
      agents: {
        list: [
          { id: 'main', identity: { name: 'Sam', emoji: '🦄' } },
          { id: 'work', identity: { emoji: '❤️' } },
          { id: 'plain' },
          { id: 'lobster', identity: { emoji: '🦞' } },
        ],
      },
      bindings: [
        { agentId: 'work', match: { channel: 'telegram', accountId: 'work' } },
        { agentId: 'plain', match: { channel: 'telegram', accountId: 'plain' } },
        { agentId: 'lobster', match: { channel: 'telegram', accountId: 'lobster' } },
      ],
      channels: {
        telegram: {
          accounts: {
            default: { botToken: 'a' },
            work: { botToken: 'b' },
            plain: { botToken: 'c' },
            own: { botToken: 'd', ackReaction: '👍' },
            lobster: { botToken: 'e' },
          },
        },
      },
    });
    const { config, notes, notConverted } = convertOpenclaw(input(), { fleet: 'f' });
    const accounts = parseConfig(config).channels.telegram!.accounts;
    // default: no binding of its own, so the default agent (main, the first) owns it.
    expect(accounts.default!.ackReaction).toBe('🦄');
    expect(accounts.work!.ackReaction).toBe('❤'); // as Telegram spells it
    expect(accounts.plain!.ackReaction).toBeUndefined(); // no emoji: clawfleet's 👀, as OpenClaw's
    expect(accounts.own!.ackReaction).toBe('👍');
    // Telegram takes no 🦞 as a reaction (setMessageReaction would refuse it): 👀 stays.
    expect(accounts.lobster!.ackReaction).toBeUndefined();
    expect(notConverted).toContainEqual({
      path: 'channels.telegram.accounts.lobster',
      reason: 'agent "lobster"\'s identity emoji "🦞" is not one of the reaction emoji Telegram takes, so the ack reaction stays 👀',
    });
    expect(notes).toContain('channels.telegram.accounts.work: ackReaction "❤", the identity emoji of agent "work" (OpenClaw\'s ack reaction when none is set)');
    // A fleet-wide ackReaction comes first in OpenClaw: the identity emoji is then not used.
    const fleetWide = parseConfig(convertOpenclaw(input({ ackReaction: '👀' }), { fleet: 'f' }).config).channels.telegram!;
    expect(fleetWide.ackReaction).toBe('👀');
    expect(Object.values(fleetWide.accounts).map((a) => a.ackReaction)).toEqual([undefined, undefined, undefined, '👍', undefined]);
  });

  it("keeps a channel's block preview chunk over the fleet's block chunk, and says the fleet's is not used", () => {
    const { config, notConverted } = convertOpenclaw(
      {
        agents: { defaults: { blockStreamingChunk: { minChars: 50 } } },
        channels: { telegram: { botToken: 'x', streaming: { mode: 'block', preview: { chunk: { maxChars: 900 } } } } },
      },
      { fleet: 'f' },
    );
    expect(parseConfig(config).channels.telegram).toMatchObject({ streaming: 'block', blockStreamingChunk: { maxChars: 900 } });
    expect(notConverted).toEqual([
      { path: 'agents.defaults.blockStreamingChunk', reason: expect.stringMatching(/keeps its "block" preview's streaming\.preview\.chunk/) },
    ]);
  });

  it('reports every value of the wrong shape by its path and still writes a valid config', () => {
    const odd = { streaming: 5, streamMode: 'fast', ackReaction: 7, replyToMode: true, commands: 'x', blockStreaming: 'yes' };
    const { config, notConverted } = convertOpenclaw(
      {
        agents: { defaults: { blockStreamingChunk: { minChars: -1, maxChars: 2.5 }, blockStreamingDefault: 'maybe' } },
        messages: { ackReactionScope: 'sometimes', ackReaction: 9 },
        commands: { native: 'sure' },
        channels: { telegram: { botToken: 'x', ...odd, streaming: { mode: 'loud', block: 'no', preview: 3 }, accounts: { a: { botToken: 'y', ...odd } } } },
      },
      { fleet: 'f' },
    );
    const telegram = parseConfig(config).channels.telegram!;
    expect(telegram.accounts.a).toEqual({ botTokenSecret: 'TELEGRAM_A_BOT_TOKEN' });
    expect(telegram).not.toHaveProperty('streaming');
    expect(telegram).not.toHaveProperty('blockStreamingChunk');
    const paths = notConverted.map((n) => n.path);
    for (const at of ['channels.telegram', 'channels.telegram.accounts.a'])
      for (const key of ['streamMode', 'blockStreaming', 'ackReaction', 'replyToMode', 'commands']) expect(paths).toContain(`${at}.${key}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'agents.defaults.blockStreamingDefault',
        'agents.defaults.blockStreamingChunk.minChars',
        'agents.defaults.blockStreamingChunk.maxChars',
        'messages.ackReaction',
        'messages.ackReactionScope',
        'commands.native',
        'channels.telegram.accounts.a.streaming',
        'channels.telegram.streaming.mode',
        'channels.telegram.streaming.block',
        'channels.telegram.streaming.preview',
      ]),
    );
  });

  it('reports fleet-wide conversation settings when there is no Telegram channel to carry them', () => {
    const { notConverted } = convertOpenclaw({ messages: { ackReaction: '👀', ackReactionScope: 'all' }, commands: { native: true } }, { fleet: 'f' });
    expect(notConverted.map((n) => n.path)).toEqual(['messages.ackReaction', 'messages.ackReactionScope', 'commands.native']);
    expect(notConverted[0]!.reason).toMatch(/no Telegram channel was converted/);
  });
});

describe('import-openclaw: topics and reactions (#31)', () => {
  it("carries a group's topics, status reactions and reactionNotifications, and names what clawfleet has not", () => {
    const { config, notConverted } = convertOpenclaw(
      {
        agents: { list: [{ id: 'main' }, { id: 'Coder' }] },
        messages: {
          statusReactions: { enabled: true, emojis: { thinking: '🤓', done: '❤️', coding: '👨‍💻', error: '💥' }, timing: { debounceMs: 0 } },
        },
        channels: {
          telegram: {
            botToken: 'x',
            reactionNotifications: 'all',
            groups: {
              '-1001234567890': {
                requireMention: true,
                topics: {
                  '1': { agentId: 'main' },
                  '3': { agentId: 'Coder', requireMention: false, allowFrom: [8734062810], systemPrompt: 'be terse' },
                  '*': { requireMention: false },
                  general: { agentId: 'main' },
                  '9': { agentId: 'ghost' },
                },
              },
            },
            accounts: { ops: { botToken: 'y', reactionNotifications: 'off', statusReactions: { enabled: false } } },
          },
        },
      },
      { fleet: 'f' },
    );
    const telegram = parseConfig(config).channels.telegram!;
    expect(telegram.statusReactions).toEqual({ enabled: true, emojis: { thinking: '🤓', done: '❤' } });
    expect(telegram.reactionNotifications).toBe('all');
    expect(telegram.accounts.ops).toMatchObject({ reactionNotifications: 'off', statusReactions: { enabled: false } });
    expect(telegram.groups!['-1001234567890']).toEqual({
      requireMention: true,
      topics: {
        '1': { agentId: 'main' },
        '3': { agentId: 'coder', requireMention: false, allowFrom: ['8734062810'] },
        '*': { requireMention: false },
        '9': {},
      },
    });
    expect(notConverted.map((n) => n.path).sort()).toEqual(
      [
        'channels.telegram.groups.-1001234567890.topics.3.systemPrompt',
        'channels.telegram.groups.-1001234567890.topics.9.agentId',
        'channels.telegram.groups.-1001234567890.topics.general',
        'messages.statusReactions.emojis.coding',
        'messages.statusReactions.emojis.error',
        'messages.statusReactions.timing',
      ].sort(),
    );
  });
});
