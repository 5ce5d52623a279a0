// The test-only switch CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS (issue #27): with it a runtime's file
// tools resolve paths the naive way, so a test can show what the local box holds by itself.
// It is read by the runtime's env.ts only, set only by the test harness's startFleet option, and
// no clawfleet.json can name it. (Its own file: the switch is for the whole process, and vitest
// gives each test file a process of its own.)
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRuntimeEnv } from '../../runtime-image/src/env.ts';
import { resolvePathsUncheckedForTests, WorkspaceDir } from '../../shared/adapters/fs/beneath.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ConfigError } from '../../shared/errors.ts';
import { runtimeEnvironment } from '../../shared/runtime-env.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('cf-unchecked-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
const config = JSON.stringify(runtimeConfigFor(parseConfig(example), 'fran'));
const base = { CLAWFLEET_AGENT_ID: 'fran', CLAWFLEET_RUNTIME_CONFIG: config, CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1', CLAWFLEET_SECRETS_FD: '3' };
const pipe = async () => JSON.stringify({ token: 't'.repeat(32), secrets: {} });

describe('the test-only switch for unchecked paths', () => {
  it('is off unless the environment says exactly "1", and nothing else turns it on', async () => {
    expect((await readRuntimeEnv(base, pipe)).uncheckedPathsForTests).toBe(false);
    expect((await readRuntimeEnv({ ...base, CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: '1' }, pipe)).uncheckedPathsForTests).toBe(true);
    for (const value of ['true', '0', 'yes'])
      await expect(readRuntimeEnv({ ...base, CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: value }, pipe)).rejects.toThrow(ConfigError);
    // The environment a launcher builds from a config never carries it; a config naming it is refused.
    const env = runtimeEnvironment('fran', runtimeConfigFor(parseConfig(example), 'fran'), { kind: 'local', controlUrl: 'http://127.0.0.1:1', secretsFd: 3 });
    expect(Object.keys(env)).not.toContain('CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS');
    expect(() => parseConfig({ ...example, uncheckedPathsForTests: true })).toThrow(ConfigError);
    expect(() => parseConfig({ ...example, agents: { ...example.agents, defaults: { ...example.agents.defaults, uncheckedPathsForTests: true } } })).toThrow(
      ConfigError,
    );
  });

  it('once on, resolves the naive way: "..", absolute paths and links are followed (the box must hold them)', async () => {
    const ws = join(root, 'ws');
    const outside = join(root, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE');
    symlinkSync(outside, join(ws, 'link'));
    const dir = new WorkspaceDir(ws);
    // Checked first, as a runtime is unless the switch is on.
    await expect(dir.readText('link/secret.txt', { maxBytes: 10 })).rejects.toThrow(/symbolic link/);
    resolvePathsUncheckedForTests();
    expect((await dir.readText('link/secret.txt', { maxBytes: 10 })).text).toBe('OUTSIDE');
    expect((await dir.readText('../outside/secret.txt', { maxBytes: 10 })).text).toBe('OUTSIDE');
    expect((await dir.readText(join(outside, 'secret.txt'), { maxBytes: 10 })).text).toBe('OUTSIDE');
    dir.writeAtomic('link/written.txt', 'through the link');
    expect(readFileSync(join(outside, 'written.txt'), 'utf8')).toBe('through the link');
  });
});
