// What an openclaw agent's clawfleet config carries into its managed gateway's openclaw.json
// (MCP servers, tools allow/deny, secret values as literals) and what is refused where the
// config enters rather than dropped: tools.browser, a sandboxed MCP server, MCP servers for an
// operator's gateway. The real gateway using the carried MCP server and deny list is proven in
// test/openclaw/openclaw-tools.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { gatewayConfig, literal } from '../../runtime-image/src/openclaw/gateway-config.ts';
import { configIssues } from '../support/config-issues.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const OPENCLAW = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };

function withFran(edit: (fran: any, config: any) => void, runtime: Record<string, unknown> = OPENCLAW): any {
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list[1].runtime = runtime;
  edit(config.agents.list[1], config);
  return config;
}

const written = (config: unknown, secrets: Record<string, string>) =>
  gatewayConfig({
    config: runtimeConfigFor(parseConfig(config), 'fran'),
    secrets,
    port: 4242,
    token: 'gateway-token-0123456789',
    workspace: '/workspace/fran',
    logFile: '/state/logs/openclaw.log',
  }) as Record<string, any>;

describe('the managed gateway’s config carries the agent’s MCP servers and tool policy', () => {
  const config = withFran((fran) => {
    fran.mcp = {
      servers: {
        notes: { command: '/usr/bin/notes-mcp', args: ['--stdio'], env: { NOTES_TOKEN: 'NOTES_TOKEN' } },
        wiki: { url: 'https://wiki.example.com/mcp', headers: { Authorization: 'WIKI_AUTH' } },
      },
    };
    fran.secrets = ['NOTES_TOKEN', 'WIKI_AUTH'];
    fran.tools = { allow: ['read', 'group:mcp', 'exec'], deny: ['exec', 'wiki__delete*'] };
  });
  const secrets = { OPENAI_API_KEY: 'sk-fran', NOTES_TOKEN: 'notes-secret', WIKI_AUTH: 'Bearer wiki-secret' };

  it('writes mcp.servers in OpenClaw’s shape: stdio in the agent’s workspace, url over streamable HTTP, secret names become this agent’s values', () => {
    expect(written(config, secrets).mcp).toEqual({
      servers: {
        notes: { command: '/usr/bin/notes-mcp', args: ['--stdio'], env: { NOTES_TOKEN: 'notes-secret' }, cwd: '/workspace/fran', transport: 'stdio' },
        wiki: { url: 'https://wiki.example.com/mcp', transport: 'streamable-http', headers: { Authorization: 'Bearer wiki-secret' } },
      },
    });
  });

  it('writes the agent’s allow/deny as OpenClaw’s per-agent lists (group:mcp as OpenClaw’s *__*), beside the control plane’s global deny', () => {
    const out = written(config, secrets);
    expect(out.agents.entries.fran.tools).toEqual({ allow: ['read', '*__*', 'exec'], deny: ['exec', 'wiki__delete*'] });
    expect(out.tools.deny).toEqual(['message', 'cron', 'gateway', 'nodes', 'sessions_send', 'plugins', 'openclaw']);
    // No MCP server and no tool policy: neither key is written.
    const plain = written(
      withFran(() => {}),
      { OPENAI_API_KEY: 'sk-fran' },
    );
    expect(plain.mcp).toBeUndefined();
    expect(plain.agents.entries.fran.tools).toBeUndefined();
  });

  it('escapes a secret value that would read as OpenClaw’s ${ENV} substitution, so the gateway gets the value as set', () => {
    expect(literal('a${HOME}b')).toBe('a$${HOME}b');
    expect(literal('${lower} $5 ${A_1}')).toBe('${lower} $5 $${A_1}');
    const out = written(config, { ...secrets, OPENAI_API_KEY: 'sk-${PATH}', NOTES_TOKEN: '${OPENCLAW_CONFIG_PATH}' });
    expect(out.models.providers.openai.apiKey).toBe('sk-$${PATH}');
    expect(out.mcp.servers.notes.env.NOTES_TOKEN).toBe('$${OPENCLAW_CONFIG_PATH}');
  });

  it('refuses to write a server whose secret value is missing, naming the server and the value (never a half-configured server)', () => {
    expect(() => written(config, { OPENAI_API_KEY: 'sk-fran', NOTES_TOKEN: 'x' })).toThrow(
      /MCP server "wiki" \(header Authorization\) needs the value "WIKI_AUTH"/,
    );
  });
});

describe('what an openclaw agent’s config asks that its gateway would not honour is a config error', () => {
  it('refuses tools.browser (the native runtime’s browser tool), for managed and external mode alike', () => {
    const browser = (fran: any) => (fran.tools = { browser: { enabled: true } });
    expect(configIssues(withFran(browser))).toEqual([
      { path: 'agents.list[1].tools.browser', message: expect.stringMatching(/native runtime's browser tool/) },
    ]);
    const external = { ...OPENCLAW, openclaw: { mode: 'external', url: 'wss://gw.example.com', tokenSecret: 'GW_TOKEN' } };
    expect(configIssues(withFran(browser, external)).map((i) => i.path)).toEqual(['agents.list[1].tools.browser']);
    // Off is fine, and a native agent keeps its browser.
    expect(configIssues(withFran((fran) => (fran.tools = { browser: { enabled: false } })))).toEqual([]);
    expect(configIssues(withFran(browser, { cpus: 1, memoryMb: 2048 }))).toEqual([]);
  });

  it('refuses an MCP server asked to run in clawfleet’s sandbox (OpenClaw starts it outside), and any MCP server for an operator’s gateway', () => {
    const sandboxed = configIssues(withFran((fran) => (fran.mcp = { servers: { fs: { command: 'mcp-fs', sandbox: true } } })));
    expect(sandboxed).toEqual([{ path: 'agents.list[1].mcp.servers.fs.sandbox', message: expect.stringMatching(/outside clawfleet's sandbox/) }]);
    expect(configIssues(withFran((fran) => (fran.mcp = { servers: { fs: { command: 'mcp-fs' } } })))).toEqual([]);
    const external = { ...OPENCLAW, openclaw: { mode: 'external', url: 'wss://gw.example.com', tokenSecret: 'GW_TOKEN' } };
    const found = configIssues(withFran((fran) => (fran.mcp = { servers: { wiki: { url: 'https://wiki.example.com/mcp' } } }), external));
    expect(found).toEqual([{ path: 'agents.list[1].mcp.servers.wiki', message: expect.stringMatching(/operator's gateway, which runs its own MCP servers/) }]);
  });

  it('is refused by `clawfleet config validate` (exit 3) and by `npm start` before anything starts', async () => {
    const dir = tempDir('cf-openclaw-carry-');
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(withFran((fran) => (fran.tools = { browser: { enabled: true } }))));
    writeFileSync(join(dir, 'secrets.json'), '{}');
    const io = captureIO({ cwd: dir });
    expect(await runCli(['config', 'validate'], io)).toBe(3);
    expect(io.errText()).toContain('agents.list[1].tools.browser: is the native runtime');
    await expect(startFleet({ dir })).rejects.toThrow(/agents.list\[1\].tools.browser: is the native runtime's browser tool/);
  });
});
