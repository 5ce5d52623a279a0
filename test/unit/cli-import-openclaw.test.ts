// The OpenClaw importer on configuration examples from OpenClaw's own documentation (each
// fixture cites its page): what converts, which secret names replace values, what is listed
// as not converted, and that the result is a valid clawfleet config.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { runCli } from '../../cli/main.ts';
import { importOpenclaw } from '../../cli/import-openclaw.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openclaw');

function convert(file: string, opts: { cronJobsPath?: string } = {}) {
  const lines: string[] = [];
  const result = importOpenclaw(join(FIXTURES, file), { fleet: 'imported', ...opts }, { err: (t) => lines.push(t) });
  return { config: parseConfig(JSON.parse(result.text)), report: lines.join('\n'), valid: result.valid, text: result.text };
}

describe('import-openclaw', () => {
  it('converts Telegram bots per agent (agents.list) into accounts, secret names and bindings', () => {
    const { config, report, text, valid } = convert('multi-agent-telegram.json5');
    expect(valid).toBe(true);
    expect(config.agents.list.map((a) => a.id)).toEqual(['main', 'alerts']);
    expect(config.channels.telegram?.accounts).toEqual({
      default: { botTokenSecret: 'TELEGRAM_BOT_TOKEN', dmPolicy: 'pairing' },
      alerts: { botTokenSecret: 'TELEGRAM_ALERTS_BOT_TOKEN', dmPolicy: 'allowlist', allowFrom: ['tg:123456789'] },
    });
    expect(config.bindings).toEqual([
      { agentId: 'main', match: { channel: 'telegram', accountId: 'default' } },
      { agentId: 'alerts', match: { channel: 'telegram', accountId: 'alerts' } },
    ]);
    // Token values never reach the output; the report says which names to set where.
    expect(text).not.toContain('123456:ABC');
    expect(text).not.toContain('987654:XYZ');
    expect(report).toContain('clawfleet secrets set TELEGRAM_ALERTS_BOT_TOKEN --control telegram');
    // Without --workspaces the workspace is named as left behind, and how to carry it.
    expect(report).toContain('agents.list[0].workspace: not carried by the config: `import-openclaw --workspaces` copies the workspace into the local fleet');
  });

  it('converts the agents.entries shape, and lists the WhatsApp bindings it cannot keep', () => {
    const { config, report } = convert('agents-entries.json5');
    expect(config.agents.list.map((a) => a.id)).toEqual(['main', 'home', 'work']);
    const main = config.agents.list[0]!;
    expect(main).toMatchObject({ name: 'Main Agent', model: 'anthropic/claude-opus-4-6', tools: { allow: ['browser'], deny: ['canvas'] } });
    expect(config.models.providers.anthropic).toEqual({ api: 'anthropic-messages', apiKeySecret: 'ANTHROPIC_API_KEY' });
    expect(config.bindings).toEqual([]);
    expect(report).toMatch(/bindings\[0\]: channel "whatsapp" is not supported/);
    expect(report).toMatch(/agents\.entries\.main\.sandbox: /);
    expect(report).toMatch(/talk: no clawfleet equivalent/);
  });

  it('gives every agent the global MCP servers, with secret names for their credentials', () => {
    const { config, report } = convert('mcp-servers.json5');
    expect(config.agents.list[0]!.mcp?.servers).toEqual({
      docs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-fetch'] },
      remote: { url: 'https://example.com/mcp', headers: { Authorization: 'REMOTE_AUTHORIZATION' } },
    });
    expect(config.agents.list[0]!.secrets).toEqual(['REMOTE_AUTHORIZATION']);
    expect(report).toContain('clawfleet secrets set REMOTE_AUTHORIZATION --agent main');
    expect(report).toMatch(/must hold the whole value/);
    expect(report).toContain('mcp.sessionIdleTtlMs: no clawfleet equivalent');
  });

  it('converts the expanded example: models with fallbacks, heartbeat, tools, telegram, hooks', () => {
    const { config, report, text } = convert('expanded-example.json5');
    expect(config.agents.defaults?.model).toEqual({ primary: 'anthropic/claude-sonnet-4-5', fallbacks: ['anthropic/claude-opus-4-6', 'openai/gpt-5.2'] });
    expect(config.agents.defaults?.heartbeat).toEqual({ every: '30m', prompt: 'HEARTBEAT' });
    expect(config.agents.list[0]!.name).toBe('Samantha');
    expect(config.channels.telegram).toMatchObject({
      allowFrom: ['123456789'],
      accounts: { default: { botTokenSecret: 'TELEGRAM_BOT_TOKEN' } },
      groups: { '*': { requireMention: true } },
    });
    expect(config.hooks).toEqual({
      tokenSecret: 'HOOKS_TOKEN',
      mappings: {
        gmail: {
          agentId: 'main',
          messageTemplate: 'From: {{body.messages[0].from}}\nSubject: {{body.messages[0].subject}}',
          sessionKey: 'hook:gmail:{{body.messages[0].id}}',
        },
      },
    });
    expect(text).not.toContain('shared-secret');
    expect(text).not.toContain('YOUR_TELEGRAM_BOT_TOKEN');
    expect(report).toMatch(/models\.providers\.custom-proxy: api "openai-responses" is not one clawfleet speaks/);
    expect(report).toMatch(/channels\.discord: clawfleet supports the Telegram channel only/);
    expect(report.match(/^ {2}tools\.exec:/gm)).toHaveLength(1);
  });

  it('reads cron jobs from the store beside the config and converts both documented shapes', () => {
    const { config, report } = convert(join('with-cron', 'openclaw.json'));
    expect(config.cron?.jobs).toEqual([
      {
        id: 'reminder',
        agentId: 'main',
        schedule: { kind: 'at', at: '2026-02-01T16:00:00Z' },
        sessionTarget: 'main',
        payload: { kind: 'systemEvent', text: 'Reminder text' },
      },
      {
        id: 'morning-brief',
        agentId: 'main',
        schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'America/Los_Angeles' },
        sessionTarget: 'isolated',
        payload: { kind: 'agentTurn', message: 'Summarize overnight updates.' },
      },
    ]);
    expect(report).toMatch(/jobs\[1\]\.delivery: delivery to channel "slack" is not supported/);
    expect(report).toMatch(/agents.defaults.model is "anthropic\/claude-sonnet-4-5"/);
  });

  it('writes --out, refuses to overwrite it without --force, and rejects bad JSON5 with exit 3', async () => {
    const dir = tempDir('cf-import-');
    const io = captureIO({ cwd: dir });
    expect(await runCli(['import-openclaw', join(FIXTURES, 'multi-agent-telegram.json5'), '--out', 'clawfleet.json', '--fleet', 'home'], io)).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8')).fleet).toBe('home');
    expect(await runCli(['import-openclaw', join(FIXTURES, 'multi-agent-telegram.json5'), '--out', 'clawfleet.json'], io)).toBe(1);
    expect(io.errText()).toMatch(/exists; pass --force/);
    const bad = captureIO({ cwd: dir });
    expect(await runCli(['import-openclaw', join(FIXTURES, '..', '..', '..', 'package.json'), '--fleet', 'Bad Name'], bad)).toBe(2);
    expect(await runCli(['import-openclaw', join(import.meta.dirname, 'cli-io.ts')], bad)).toBe(3);
    expect(bad.errText()).toMatch(/not valid JSON5/);
  });

  it('says where an OpenClaw config stops being JSON5, showing the line with its bot token masked', async () => {
    const dir = tempDir('cf-import-');
    try {
      const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
      writeFileSync(join(dir, 'openclaw.json'), `{\n  channels: { telegram: { botToken: "${token}" ] } },\n}\n`);
      const io = captureIO({ cwd: dir });
      expect(await runCli(['import-openclaw', 'openclaw.json'], io)).toBe(3);
      expect(io.errText()).toContain("openclaw.json is not valid JSON5: line 2, column 84: invalid character ']'");
      expect(io.errText()).toContain(`2 |   channels: { telegram: { botToken: "${'*'.repeat(token.length)}" ] } },`);
      expect(io.errText()).not.toContain('AAHdqTcv');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
