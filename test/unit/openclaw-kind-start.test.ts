// The openclaw kind's start without OpenClaw (the real gateway is test/openclaw): the
// container health file is fresh from its first moment, while its gateway is still starting
// (~30 s on AWS, so ECS would otherwise replace the task); an install that is not the pinned
// release is refused before anything starts; and the image stage each kind runs from.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../../shared/adapters/memory/in-memory-state.ts';
import { imageVariantFor, imageVariantProblem } from '../../shared/config/image-variant.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { readRuntimeEnv } from '../../runtime-image/src/env.ts';
import { openclawStateDir, startOpenclawRuntime } from '../../runtime-image/src/kinds/openclaw.ts';
import { checkPinnedInstall } from '../../runtime-image/src/openclaw/gateway-process.ts';

const KEY = 'sk-test-openclaw-health-0123456789';

/** An "OpenClaw" install whose gateway never says it is ready (its entry just waits). */
function neverReadyInstall(version: string): { node: string; cli: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cf-openclaw-fake-install-'));
  const pkg = join(dir, 'node_modules', 'openclaw');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'openclaw', version }));
  writeFileSync(join(pkg, 'openclaw.mjs'), 'setInterval(() => {}, 60_000);\n');
  return { node: process.execPath, cli: join(pkg, 'openclaw.mjs') };
}

function franOnOpenclaw() {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  raw.agents.list.find((a: { id: string }) => a.id === 'fran').runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
  return runtimeConfigFor(parseConfig(raw), 'fran');
}

describe('the openclaw kind’s container health file', () => {
  it('is written from the first moment, while the gateway is still starting (its state on the workspace, its config not)', async () => {
    const install = neverReadyInstall(OPENCLAW_VERSION);
    const workspace = mkdtempSync(join(tmpdir(), 'cf-openclaw-health-'));
    const healthFile = `${workspace}-alive`;
    const env = await readRuntimeEnv(
      {
        CLAWFLEET_AGENT_ID: 'fran',
        CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(franOnOpenclaw()),
        CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1',
        CLAWFLEET_SECRETS_FD: '3',
        CLAWFLEET_WORKSPACE: workspace,
        CLAWFLEET_RUNTIME_STATE: `${workspace}-state`,
        CLAWFLEET_HEALTH_FILE: healthFile,
        CLAWFLEET_OPENCLAW_NODE: install.node,
        CLAWFLEET_OPENCLAW_CLI: install.cli,
        CLAWFLEET_OPENCLAW_READY_SECONDS: '5',
      },
      async () => JSON.stringify({ token: 'x'.repeat(16), secrets: {} }),
    );
    const starting = startOpenclawRuntime({
      env,
      inbox: new InMemoryFifoQueue(),
      outbox: new InMemoryOutbox(),
      deadLetters: new InMemoryDeadLetters(),
      secrets: { OPENAI_API_KEY: KEY },
      clock: systemClock,
      log: memoryLogger(),
      exit: () => {},
    });
    const outcome = starting.then(
      () => 'started',
      (err: unknown) => err,
    );
    // Written before the gateway could be ready (it never is here), and fresh.
    await expect.poll(() => existsSync(healthFile), { timeout: 3_000 }).toBe(true);
    expect(Date.now() - Number(readFileSync(healthFile, 'utf8'))).toBeLessThan(5_000);
    // The gateway's state is on the agent's workspace (EFS on AWS), its config in the runtime's own state.
    await expect.poll(() => existsSync(openclawStateDir(workspace)), { timeout: 3_000 }).toBe(true);
    await expect.poll(() => existsSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json')), { timeout: 3_000 }).toBe(true);
    const config = readFileSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json'), 'utf8');
    expect(statSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json')).mode & 0o777).toBe(0o600);
    expect(config).toContain(KEY);

    const err = await outcome;
    expect(err).toBeInstanceOf(ClawfleetError);
    expect((err as ClawfleetError).code).toBe('OPENCLAW_GATEWAY_FAILED');
    expect((err as Error).message).toMatch(/not ready within 5 s/);
    // The config with the key never went to the shared workspace.
    expect(existsSync(join(workspace, '.clawfleet', 'openclaw-state', 'openclaw.json'))).toBe(false);
  }, 20_000);
});

describe('the pinned OpenClaw release', () => {
  it('is the only install the managed gateway starts: another version, or none, is refused with why', () => {
    expect(() => checkPinnedInstall(neverReadyInstall(OPENCLAW_VERSION))).not.toThrow();
    const other = neverReadyInstall('2026.8.1');
    expect(() => checkPinnedInstall(other)).toThrow(ClawfleetError);
    expect(() => checkPinnedInstall(other)).toThrow(`runtime.kind "openclaw" runs OpenClaw ${OPENCLAW_VERSION}, but`);
    expect(() => checkPinnedInstall(other)).toThrow(/says 2026\.8\.1/);
    expect(() => checkPinnedInstall({ node: process.execPath, cli: '/nonexistent/openclaw.mjs' })).toThrow(/\/nonexistent\/openclaw.mjs is missing/);
  });
});

describe('the image stage an agent runs from on AWS', () => {
  it('is openclaw for the openclaw kind, browser for a native agent with a browser, runtime otherwise', () => {
    const browser = { tools: { browser: { enabled: true } } };
    expect(imageVariantFor({ runtime: { kind: 'openclaw' } })).toBe('openclaw');
    expect(imageVariantFor({ ...browser, runtime: { kind: 'native' } })).toBe('browser');
    expect(imageVariantFor({})).toBe('runtime');
    expect(imageVariantProblem({ ...browser, runtime: { kind: 'openclaw' } })).toMatch(/openclaw image carries no Chromium/);
    expect(imageVariantProblem({ runtime: { kind: 'openclaw' } })).toBeUndefined();
    expect(imageVariantProblem(browser)).toBeUndefined();
  });
});
