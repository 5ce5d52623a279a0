import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, parseConfigText, loadConfigFile } from '../../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { configIssues } from '../support/config-issues.ts';
import { decideAccess } from '../../shared/control/access.ts';
import { streamRequestFor } from '../../shared/control/streaming.ts';

const example = () => JSON.parse(readFileSync('clawfleet.json', 'utf8')) as Record<string, any>;

describe('config', () => {
  it('accepts the example fleet: jerry heavy and always on, three light agents that hibernate', () => {
    const config = loadConfigFile('clawfleet.json');
    expect(config.agents.list.map((a) => a.id)).toEqual(['jerry', 'fran', 'grif', 'ray']);
    expect(resolveAgent(config, 'jerry').runtime).toMatchObject({ cpus: 2, memoryMb: 4096, alwaysOn: true });
    expect(resolveAgent(config, 'ray').runtime).toEqual({ cpus: 0.25, memoryMb: 512, idleTimeoutMinutes: 30 });
    expect(resolveAgent(config, 'fran').model).toEqual({ primary: 'openai/gpt-4.1-mini', fallbacks: [] });
  });

  it('reports every problem at once, each with its JSON path', () => {
    const c = example();
    c.agents.list[1].runtime = { cpus: 3, memoryMb: 512 };
    c.agents.list[2].colour = 'blue';
    c.bindings[0].agentId = 'nobody';
    c.models.providers.openai.api = 'openai-chat';
    const issues = configIssues(c);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['agents.list[1].runtime.cpus', 'agents.list[2].colour', 'models.providers.openai.api']));
  });

  it('checks references across the file once the shape is right', () => {
    const c = example();
    c.bindings[0].agentId = 'nobody';
    c.bindings[1].match.accountId = 'ghost';
    c.agents.list[3].model = 'mistral/small';
    c.agents.list.push({ id: 'fran' });
    c.agents.list[1].default = true;
    const issues = configIssues(c);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'bindings[0].agentId', message: 'no agent "nobody"' },
        { path: 'bindings[1].match.accountId', message: 'no telegram account "ghost"' },
        { path: 'agents.list[3].model', message: expect.stringContaining('provider "mistral"') },
        { path: 'agents.list[4].id', message: 'duplicate agent id "fran"' },
        { path: 'agents.list', message: expect.stringContaining('only one agent may be the default') },
      ]),
    );
  });

  it('takes the hook session and relay limits, and refuses a prefix that could never match', () => {
    const c = example();
    c.hooks = { tokenSecret: 'HOOKS_TOKEN', allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'agent:fran:main'] };
    c.agentToAgent = { allow: [], rateLimit: { max: 0, perMinutes: 10 } };
    expect(configIssues(c)).toEqual(
      expect.arrayContaining([
        { path: 'hooks.allowedSessionKeyPrefixes[1]', message: expect.stringContaining('is matched after "agent:<id>:"') },
        { path: 'agentToAgent.rateLimit.max', message: '0 is too small; expected a whole number from 1 to 10000' },
      ]),
    );
    c.hooks.allowedSessionKeyPrefixes = ['hook:', 'main'];
    c.agentToAgent.rateLimit.max = 30;
    expect(parseConfig(c)).toMatchObject({
      hooks: { allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'main'] },
      agentToAgent: { rateLimit: { max: 30, perMinutes: 10 } },
    });
  });

  it('refuses names that would collide with built-in names', () => {
    const c = example();
    c.agents.list[3].id = 'ray-dlq';
    c.bindings[3].agentId = 'ray-dlq';
    c.hooks = { tokenSecret: 'HOOKS_TOKEN', mappings: { wake: { agentId: 'fran', messageTemplate: 'x' } } };
    expect(configIssues(c).map((i) => i.path)).toEqual(['agents.list[3].id', 'hooks.mappings.wake']);
  });

  it('refuses a Fargate size that does not exist', () => {
    const c = example();
    c.agents.list[0].runtime = { cpus: 2, memoryMb: 2048 };
    expect(configIssues(c)).toEqual([{ path: 'agents.list[0].runtime', message: expect.stringContaining('4096–16384') }]);
  });

  it('says where invalid JSON is', () => {
    expect(() => parseConfigText('{ "fleet": ')).toThrow(/not valid JSON/);
  });

  it("takes block streaming with its chunk bounds per channel and account, and progress streaming at the chat's draft pace", () => {
    const c = example();
    c.channels.telegram.streaming = 'block';
    c.channels.telegram.blockStreamingChunk = { minChars: 100 };
    c.channels.telegram.accounts.fran.blockStreamingChunk = { minChars: 50, maxChars: 300 };
    const config = parseConfig(c);
    expect(streamRequestFor(config, 'fran', 'direct')).toEqual({ mode: 'block', minIntervalMs: 1_000, block: { minChars: 50, maxChars: 300 } });
    expect(streamRequestFor(config, 'grif', 'group')).toEqual({ mode: 'block', minIntervalMs: 3_000, block: { minChars: 100, maxChars: 800 } });
    // The dashboard's chat box follows the channel-wide setting.
    expect(streamRequestFor(config, undefined, 'direct')?.mode).toBe('block');

    c.channels.telegram.accounts.fran.streaming = 'progress';
    const progress = parseConfig(c);
    expect(streamRequestFor(progress, 'fran', 'direct')).toEqual({ mode: 'progress', minIntervalMs: 1_000 });
    expect(streamRequestFor(progress, 'fran', 'group')).toEqual({ mode: 'progress', minIntervalMs: 3_000 });
    expect(streamRequestFor(progress, 'grif', 'direct')?.mode).toBe('block');

    c.channels.telegram.accounts.fran.streaming = 'preview';
    c.channels.telegram.blockStreamingChunk = { minChars: 900, maxChars: 300 };
    const issues = configIssues(c);
    expect(issues.find((i) => i.path === 'channels.telegram.accounts.fran.streaming')?.message).toBe('must be "off", "partial", "block" or "progress"');
    expect(issues.find((i) => i.path === 'channels.telegram.blockStreamingChunk')?.message).toMatch(/minChars must not be over maxChars/);
  });

  it('takes numeric Telegram ids in every allowFrom, as OpenClaw writes them, and keeps them as strings', async () => {
    const c = example();
    c.channels.telegram.allowFrom = [700100200, '42', 'tg:43', '*'];
    c.channels.telegram.accounts.fran.allowFrom = [700100201];
    c.channels.telegram.groups = { '-1001234567890': { allowFrom: [700100202, '44'] } };
    const telegram = parseConfig(c).channels.telegram!;
    expect(telegram.allowFrom).toEqual(['700100200', '42', 'tg:43', '*']);
    expect(telegram.accounts.fran!.allowFrom).toEqual(['700100201']);
    expect(telegram.groups!['-1001234567890']!.allowFrom).toEqual(['700100202', '44']);

    // And the id lets that sender in where only listed senders may talk.
    c.channels.telegram.dmPolicy = 'allowlist';
    c.channels.telegram.allowFrom = [700100200];
    delete c.channels.telegram.accounts.fran.allowFrom;
    const deps = { config: parseConfig(c), pairings: undefined as never, now: 0, newCode: () => 'X' };
    const dm = (senderId: string) => decideAccess({ accountId: 'fran', chat: { kind: 'direct', id: senderId }, senderId, mentioned: false }, deps);
    expect(await dm('700100200')).toEqual({ kind: 'allow' });
    expect(await dm('700100299')).toMatchObject({ kind: 'ignore' });
  });

  it('refuses an allowFrom entry that is neither an id nor a string, with its path', () => {
    const c = example();
    c.channels.telegram.allowFrom = [1.5, true, ''];
    c.channels.telegram.accounts.fran.allowFrom = [{ id: 1 }];
    expect(configIssues(c).map((i) => i.path)).toEqual([
      'channels.telegram.allowFrom[0]',
      'channels.telegram.allowFrom[1]',
      'channels.telegram.allowFrom[2]',
      'channels.telegram.accounts.fran.allowFrom[0]',
    ]);
  });

  it('gives a runtime only its own agent and the providers it uses', () => {
    const rc = runtimeConfigFor(loadConfigFile('clawfleet.json'), 'fran');
    expect(rc.agent.id).toBe('fran');
    expect(Object.keys(rc.providers)).toEqual(['openai']);
    expect(JSON.stringify(rc)).not.toContain('jerry');
  });
});

describe('the committed JSON Schema', () => {
  it('matches the zod schema (run `npm run schema` after changing it)', async () => {
    const { configJsonSchema } = await import('../../shared/config/json-schema.ts');
    expect(readFileSync('docs/clawfleet.schema.json', 'utf8')).toBe(configJsonSchema());
  });
});
