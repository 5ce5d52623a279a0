// `clawfleet security audit` against a config with every risky setting it knows, a secrets
// file others can read and a state directory others can enter: each finding is named with
// its severity and place, the command exits 1 on high findings, prints no secret value, and
// a careful config of the same fleet gets no high finding.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { auditLocal } from '../../cli/security/local-checks.ts';
import { auditConfig } from '../../cli/security/config-risks.ts';
import { loadConfigFile, parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const DASHBOARD_TOKEN = 'dash-0123456789abcdef';
type AgentInput = FleetConfigInput['agents']['list'][number];
const HOOKS_TOKEN = 'hook-0123456789abcdef';
const BOT_TOKEN = '123456:AAF-risky-audit-bot-token-value';

const demo = JSON.parse(readFileSync('clawfleet.json', 'utf8')) as FleetConfigInput;

function risky(): FleetConfigInput {
  const config = structuredClone(demo);
  const telegram = config.channels!.telegram!;
  telegram.accounts.fran!.dmPolicy = 'open';
  telegram.accounts.grif = { ...telegram.accounts.grif!, dmPolicy: 'allowlist', allowFrom: ['700100200', '700100201'] };
  telegram.groups = { '*': { requireMention: false } };
  const [jerry, fran, grif, ray] = config.agents.list as [AgentInput, AgentInput, AgentInput, AgentInput];
  jerry.tools = { exec: { sandbox: 'off' } };
  fran.tools = { exec: { security: 'allowlist', allowlist: ['git', '/usr/bin/env'], env: { TODOIST_API_KEY: 'TODOIST_KEY' } } };
  grif.mcp = { servers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } };
  ray.tools = { web: { fetch: { allowPrivateHosts: ['wiki.corp.example', 'localhost'] } }, browser: { enabled: true } };
  config.hooks = { tokenSecret: 'HOOKS_TOKEN', allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'main'] };
  config.agentToAgent = {
    allow: [
      { from: 'fran', to: 'grif' },
      { from: 'grif', to: 'fran' },
    ],
    rateLimit: { max: 600, perMinutes: 1 },
  };
  return config;
}

function fleetDir(config: unknown, secretsMode: number, stateMode: number): string {
  const dir = tempDir('cf-audit-');
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'clawfleet.secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/dashboard': { DASHBOARD_TOKEN },
      'clawfleet/demo/control/hooks': { HOOKS_TOKEN },
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: BOT_TOKEN },
    }),
  );
  chmodSync(join(dir, 'clawfleet.secrets.json'), secretsMode);
  mkdirSync(join(dir, '.clawfleet'));
  chmodSync(join(dir, '.clawfleet'), stateMode);
  return dir;
}

describe('clawfleet security audit', () => {
  it('names every risky setting with its severity and place, exits 1, and prints no secret value', async () => {
    const io = captureIO({ cwd: fleetDir(risky(), 0o644, 0o755) });
    expect(await runCli(['security', 'audit', '--json'], io)).toBe(1);
    const report = JSON.parse(io.outText()) as { findings: { id: string; severity: string; where: string }[]; counts: Record<string, number> };
    const got = report.findings.map((f) => `${f.severity} ${f.id} ${f.where}`);
    expect(got).toEqual(
      expect.arrayContaining([
        'high dm.open channels.telegram.accounts.fran.dmPolicy',
        'high dm.shared-session session.dmScope', // fran (open) and grif (two people listed)
        'warn dm.shared-session session.dmScope', // jerry and ray: pairing
        'high groups.any channels.telegram.groups["*"]',
        'high exec.unsandboxed agents.list[jerry].tools.exec.sandbox',
        'warn exec.allowlist-runs-anything agents.list[fran].tools.exec.allowlist',
        'warn exec.secrets agents.list[fran].tools.exec.env',
        'warn mcp.unsandboxed agents.list[grif].mcp.servers.files',
        'high web.loopback-allowed agents.list[ray].tools.web.fetch.allowPrivateHosts',
        'info browser.enabled agents.list[ray].tools.browser',
        'high hooks.caller-chooses-session hooks.allowRequestSessionKey',
        'warn relay.rate-high agentToAgent.rateLimit',
        'info relay.both-ways agentToAgent.allow',
        expect.stringMatching(/^high local\.secrets-file-readable .*clawfleet\.secrets\.json$/),
        expect.stringMatching(/^warn local\.state-dir-readable .*\.clawfleet$/),
        expect.stringMatching(/^warn token\.dashboard-short .*DASHBOARD_TOKEN$/),
        expect.stringMatching(/^warn token\.hooks-short .*HOOKS_TOKEN$/),
      ]),
    );
    expect(got.filter((g) => g.startsWith('high dm.shared-session'))).toHaveLength(2);
    // Worst first.
    const order = report.findings.map((f) => f.severity);
    expect(order).toEqual([...order].sort((a, b) => ['high', 'warn', 'info'].indexOf(a) - ['high', 'warn', 'info'].indexOf(b)));
    expect(report.counts.high).toBe(order.filter((s) => s === 'high').length);
    for (const secret of [DASHBOARD_TOKEN, HOOKS_TOKEN, BOT_TOKEN]) expect(io.outText() + io.errText()).not.toContain(secret);
  });

  it('prints a readable report too, and the same verdict', async () => {
    const io = captureIO({ cwd: fleetDir(risky(), 0o644, 0o755) });
    expect(await runCli(['security', 'audit'], io)).toBe(1);
    expect(io.outText()).toMatch(/^HIGH {2}Anyone on Telegram can talk to agent "fran" through bot "fran"$/m);
    expect(io.outText()).toMatch(/fix: chmod 600 .*clawfleet\.secrets\.json/);
    expect(io.outText()).toMatch(/\d+ high, \d+ warn, \d+ info$/);
  });

  it('finds no high setting in a careful fleet: one session per person, files only their owner reads', async () => {
    const careful = structuredClone(demo);
    careful.session = { dmScope: 'per-channel-peer' };
    const io = captureIO({ cwd: fleetDir(careful, 0o600, 0o700) });
    expect(await runCli(['security', 'audit', '--json'], io)).toBe(0);
    const report = JSON.parse(io.outText()) as { findings: { id: string; severity: string }[] };
    expect(report.findings.filter((f) => f.severity === 'high')).toEqual([]);
    expect(report.findings.map((f) => f.id)).not.toContain('dm.shared-session');
  });

  it('says each finding of the shipped example once, naming every bot or agent it concerns, and why it is so by design', async () => {
    const dir = fleetDir(demo, 0o600, 0o700);
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const io = captureIO({ cwd: dir });
    expect(await runCli(['security', 'audit', '--json'], io)).toBe(0);
    const report = JSON.parse(io.outText()) as { findings: { id: string; severity: string; title: string; byDesign?: string }[] };
    const config = report.findings.filter((f) => !f.id.startsWith('local.') && !f.id.startsWith('token.'));
    expect(config.map((f) => `${f.severity} ${f.id}`)).toEqual(['warn dm.shared-session', 'info exec.network']);
    expect(config[0]!.title).toBe(
      'Everyone who writes to one of the bots "jerry", "fran", "grif" or "ray" shares that bot\'s one conversation with the others',
    );
    expect(config[1]!.title).toBe('Agents "jerry", "fran", "grif" and "ray": their commands reach the network');
    for (const f of config) expect(f.byDesign, f.id).toBeTruthy();
    const text = captureIO({ cwd: dir });
    expect(await runCli(['security', 'audit'], text)).toBe(0);
    expect(text.outText().match(/dm\.shared-session/g)).toHaveLength(1);
    expect(text.outText()).toMatch(/^ {6}by design: each bot is one person’s agent/m);
  });

  it('tells an openclaw agent’s unsandboxed MCP server what its gateway can and cannot do, never to set sandbox true (refused for that kind)', () => {
    const config = structuredClone(demo);
    const fran = config.agents.list[1]!;
    fran.runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
    fran.mcp = { servers: { files: { command: 'mcp-files' } } };
    const findings = auditConfig(parseConfig(config)).filter((f) => f.id === 'mcp.unsandboxed');
    expect(findings).toHaveLength(1);
    expect(findings[0]!.detail).toMatch(/OpenClaw starts it as its gateway’s own user/);
    expect(findings[0]!.fix).toMatch(/^runtime.kind "openclaw" cannot sandbox it/);
    // What the fix would have said before is a config error for this kind.
    fran.mcp.servers.files = { command: 'mcp-files', sandbox: true };
    expect(() => parseConfig(config)).toThrow(/agents.list\[1\].mcp.servers.files.sandbox: runtime.kind "openclaw" cannot honour it/);
  });

  it('says where no sandbox works that boxed runtimes do not start, and with every runtime unboxed that exec stays off', () => {
    const config = loadConfigFile('clawfleet.json');
    const facts = {
      secretsPath: 's.json',
      secretsMode: 0o600,
      statePath: '.clawfleet',
      stateMode: 0o700,
      sandboxUnavailable: 'bubblewrap (bwrap) is not installed',
    };
    const [finding] = auditLocal(config, facts);
    expect(finding).toMatchObject({ id: 'local.no-sandbox', severity: 'warn' });
    expect(finding!.title).toBe('clawfleet start refuses to run "jerry", "fran", "grif", "ray": no sandbox works here for their runtimes’ boxes');
    expect(auditLocal(config, { ...facts, sandboxUnavailable: undefined })).toEqual([]);

    const unboxed = structuredClone(demo);
    unboxed.agents.defaults!.runtime = { ...unboxed.agents.defaults!.runtime, localSandbox: 'off' };
    const findings = auditLocal(parseConfig(unboxed), facts);
    expect(findings.find((f) => f.id === 'local.no-sandbox')!.title).toBe(
      'exec, sandboxed MCP servers and the browser stay off for "jerry", "fran", "grif", "ray": no sandbox works here',
    );
    expect(findings.filter((f) => f.id === 'runtime.unboxed').map((f) => f.where)).toEqual(
      ['jerry', 'fran', 'grif', 'ray'].map((id) => `agents.list[${id}].runtime.localSandbox`),
    );
    // On a machine where the sandbox works, the unboxed runtimes are still named.
    expect(auditLocal(parseConfig(unboxed), { ...facts, sandboxUnavailable: undefined }).map((f) => f.id)).toEqual(Array(4).fill('runtime.unboxed'));
  });
});
