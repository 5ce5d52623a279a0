// The runtime kind seam without a gateway: runtime.kind and its options checked where a
// config enters (`clawfleet config validate`, `npm start`; synth in test/infra/runtime-kinds),
// the registry refusing a kind where it cannot run, and the managed gateway's written config.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ConfigError } from '../../shared/errors.ts';
import type { RuntimeEnv } from '../../runtime-image/src/env.ts';
import { runtimeKindOf } from '../../runtime-image/src/kinds/registry.ts';
import { messageText } from '../../runtime-image/src/openclaw/bridge-turn.ts';
import { DENIED_TOOLS, gatewayConfig } from '../../runtime-image/src/openclaw/gateway-config.ts';
import { configIssues } from '../support/config-issues.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const demo = () => JSON.parse(readFileSync('clawfleet.json', 'utf8'));

function withFran(runtime: Record<string, unknown>, edit: (c: any) => void = () => {}): any {
  const config = demo();
  config.agents.list[1].runtime = runtime;
  edit(config);
  return config;
}

describe('runtime.kind in the config', () => {
  it('takes native by default and openclaw at a size it fits in', () => {
    expect(configIssues(demo())).toEqual([]);
    expect(configIssues(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }))).toEqual([]);
    expect(configIssues(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048, openclaw: { mode: 'managed' } }))).toEqual([]);
    expect(runtimeConfigFor(parseConfig(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 })), 'fran').agent.runtime.kind).toBe('openclaw');
  });

  it('refuses an unknown kind, naming the kinds there are', () => {
    const found = configIssues(withFran({ kind: 'hermes' }));
    expect(found).toEqual([{ path: 'agents.list[1].runtime.kind', message: 'must be one of the runtime kinds: "native", "openclaw"' }]);
  });

  it('refuses a task too small for the kind, with the reason (the example’s light agents cannot run OpenClaw in 0.5 GB)', () => {
    const found = configIssues(withFran({ kind: 'openclaw' }));
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('agents.list[1].runtime');
    expect(found[0]!.message).toMatch(/^runtime.kind "openclaw" needs at least 1 vCPU and 2048 MB \(got 0.25 vCPU, 512 MB\): a managed OpenClaw gateway/);
    // Set in the defaults, the kind applies to every agent that inherits it, and each is sized on its own.
    const all = configIssues(withFran({}, (c) => (c.agents.defaults.runtime.kind = 'openclaw')));
    expect(all.map((i) => i.path)).toEqual(['agents.list[1].runtime', 'agents.list[2].runtime', 'agents.list[3].runtime']);
  });

  it('refuses openclaw options on another kind, an external gateway without its URL and token, and Bedrock models', () => {
    expect(configIssues(withFran({ openclaw: { mode: 'managed' } }))).toEqual([
      { path: 'agents.list[1].runtime.openclaw', message: 'applies to runtime.kind "openclaw" only (this agent\'s is "native")' },
    ]);
    const external = configIssues(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048, openclaw: { mode: 'external' } }));
    expect(external).toEqual([
      { path: 'agents.list[1].runtime.openclaw.url', message: expect.stringMatching(/needs the gateway's URL/) },
      { path: 'agents.list[1].runtime.openclaw.tokenSecret', message: expect.stringMatching(/needs the name of the value/) },
    ]);
    const bedrock = configIssues(
      withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }, (c) => {
        c.models.providers.bedrock = { api: 'bedrock-converse' };
        c.agents.list[1].model = 'bedrock/anthropic.claude-sonnet-4-5';
      }),
    );
    expect(bedrock).toEqual([
      { path: 'agents.list[1].runtime.model', message: expect.stringMatching(/Bedrock, which runtime.kind "openclaw" does not support yet/) },
    ]);
  });

  it('an unknown kind and an undersized task are each refused by `clawfleet config validate` (exit 3) and by `npm start` before anything starts', async () => {
    const dir = tempDir('cf-kinds-');
    writeFileSync(join(dir, 'secrets.json'), '{}');
    const cases = [
      { file: 'unknown.json', runtime: { kind: 'hermes' }, says: 'agents.list[1].runtime.kind: must be one of the runtime kinds: "native", "openclaw"' },
      {
        file: 'small.json',
        runtime: { kind: 'openclaw' },
        says: 'agents.list[1].runtime: runtime.kind "openclaw" needs at least 1 vCPU and 2048 MB (got 0.25 vCPU, 512 MB)',
      },
    ];
    for (const c of cases) {
      writeFileSync(join(dir, c.file), JSON.stringify(withFran(c.runtime)));
      const io = captureIO({ cwd: dir });
      expect(await runCli(['config', 'validate', '--config', c.file], io), c.file).toBe(3);
      expect(io.errText()).toContain(c.says);
      const state = join(dir, `state-${c.file}`);
      const start = startFleet({ dir, configPath: join(dir, c.file), stateDir: state });
      await expect(start).rejects.toThrow(ConfigError);
      await expect(start).rejects.toThrow(c.says);
      // Refused before anything starts: no state directory, so no runtime, queue or lock.
      expect(existsSync(state), c.file).toBe(false);
    }
  });
});

describe('clawfleet cost per runtime kind', () => {
  it('prices each agent with its kind and sums compute per kind, with no refusal to note now that AWS runs the openclaw kind', async () => {
    const dir = tempDir('cf-kinds-cost-');
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 })));
    const io = captureIO({ cwd: dir });
    expect(await runCli(['cost'], io)).toBe(0);
    const text = io.outText();
    expect(text).toMatch(/fran\s+openclaw\s+1 vCPU \/ 2 GB arm64/);
    expect(text).toMatch(/grif\s+native\s+0.25 vCPU \/ 0.5 GB arm64/);
    expect(text).toMatch(/Compute by runtime kind \(as configured\): native 3 agents \$\d+(\.\d\d)?; openclaw 1 agent \$\d+(\.\d\d)?/);
    expect(text).not.toContain('not supported yet');
  });
});

describe('import-openclaw --runtime openclaw', () => {
  it('keeps the imported agents on OpenClaw, sized for it, and refuses another kind', async () => {
    const dir = tempDir('cf-kinds-import-');
    const fixture = join(import.meta.dirname, '..', 'fixtures', 'openclaw', 'multi-agent-telegram.json5');
    const io = captureIO({ cwd: dir });
    expect(await runCli(['import-openclaw', fixture, '--out', 'clawfleet.json', '--runtime', 'openclaw'], io)).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
    expect(written.agents.defaults.runtime).toEqual({ kind: 'openclaw', cpus: 1, memoryMb: 2048, idleTimeoutMinutes: 30 });
    expect(io.errText()).toContain('every agent keeps running on OpenClaw');
    const config = parseConfig(written);
    for (const a of config.agents.list) expect(runtimeConfigFor(config, a.id).agent.runtime.kind).toBe('openclaw');
    const bad = captureIO({ cwd: dir });
    expect(await runCli(['import-openclaw', fixture, '--runtime', 'hermes'], bad)).toBe(2);
    expect(bad.errText()).toContain('--runtime must be "native" or "openclaw"');
  });
});

describe('the kind registry (runtime-image/src/kinds/registry.ts)', () => {
  const envFor = (kind: 'native' | 'openclaw', transport: 'local' | 'aws') =>
    ({
      agentId: 'fran',
      config: runtimeConfigFor(parseConfig(withFran({ kind, cpus: 1, memoryMb: 2048 })), 'fran'),
      transport:
        transport === 'aws'
          ? { kind: 'aws', inboxUrl: 'http://q/in', outboxUrl: 'http://q/out', dlqUrl: 'http://q/dlq' }
          : { kind: 'local', controlUrl: 'http://127.0.0.1:1', token: 't'.repeat(16), secrets: {} },
    }) as unknown as RuntimeEnv;

  it('loads each kind’s start at each placement (the openclaw kind on AWS too), and refuses a kind it does not know', async () => {
    for (const kind of ['native', 'openclaw'] as const)
      for (const placement of ['local', 'aws'] as const) expect(typeof (await runtimeKindOf(envFor(kind, placement)))).toBe('function');
    // A kind the schema would refuse, as a hand-made environment could still carry it.
    const unknown = envFor('native', 'aws');
    (unknown.config.agent.runtime as { kind: string }).kind = 'hermes';
    expect(() => runtimeKindOf(unknown)).toThrow(ConfigError);
    expect(() => runtimeKindOf(unknown)).toThrow(/unknown runtime kind "hermes"/);
  });
});

describe('the managed gateway’s config (openclaw/gateway-config.ts)', () => {
  const config = runtimeConfigFor(
    parseConfig(
      withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }, (c) => {
        c.agents.list[1].model = { primary: 'openai/gpt-4.1-mini', fallbacks: ['anthropic/claude-sonnet-4-5'] };
      }),
    ),
    'fran',
  );
  const written = gatewayConfig({
    config,
    secrets: { OPENAI_API_KEY: 'sk-fran-openai', ANTHROPIC_API_KEY: 'sk-fran-anthropic' },
    port: 4242,
    token: 'gateway-token-0123456789',
    workspace: '/workspace',
    logFile: '/state/logs/openclaw.log',
  }) as Record<string, any>;

  it('passes the agent’s skills allow list on as OpenClaw’s own (agents.entries.<id>.skills), and none when it has none', () => {
    const allowing = gatewayConfig({
      config: runtimeConfigFor(parseConfig(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }, (c) => (c.agents.list[1].skills = ['notes']))), 'fran'),
      secrets: { OPENAI_API_KEY: 'sk-fran-openai' },
      port: 4242,
      token: 'gateway-token-0123456789',
      workspace: '/workspace',
      logFile: '/state/logs/openclaw.log',
    }) as Record<string, any>;
    expect(allowing.agents.entries.fran.skills).toEqual(['notes']);
    expect(written.agents.entries.fran).not.toHaveProperty('skills');
  });

  it('holds one agent, its providers with its own keys, and turns off everything the control plane owns', () => {
    expect(Object.keys(written.agents.entries)).toEqual(['fran']);
    expect(written.agents.entries.fran).toEqual({
      name: 'Fran',
      model: { primary: 'openai/gpt-4.1-mini', fallbacks: ['anthropic/claude-sonnet-4-5'] },
      workspace: '/workspace',
    });
    expect(written.models.providers).toEqual({
      openai: { baseUrl: 'https://api.openai.com/v1', api: 'openai-completions', apiKey: 'sk-fran-openai', models: [] },
      anthropic: { baseUrl: 'https://api.anthropic.com', api: 'anthropic-messages', apiKey: 'sk-fran-anthropic', models: [] },
    });
    expect(written.gateway).toEqual({
      mode: 'local',
      port: 4242,
      bind: 'loopback',
      auth: { mode: 'token', token: 'gateway-token-0123456789' },
      controlUi: { enabled: false },
      tailscale: { mode: 'off' },
    });
    expect(written.channels).toBeUndefined();
    expect(written.cron).toEqual({ enabled: false });
    expect(written.hooks).toEqual({ enabled: false });
    expect(written.agents.defaults.heartbeat).toEqual({ every: '0m' });
    expect(written.tools.deny).toEqual([...DENIED_TOOLS]);
  });

  it('reads a chat message’s text from a string or its text parts', () => {
    expect(messageText({ role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'toolCall' }, { type: 'text', text: 'b ' }] })).toBe('ab');
    expect(messageText({ content: ' plain ' })).toBe('plain');
    expect(messageText(undefined)).toBe('');
  });
});
