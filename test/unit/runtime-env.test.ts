// What a runtime is given at start (runtime-image/src/env.ts): in local mode its token and
// secrets arrive on a pipe, never in its environment; every way that can go wrong is a
// start-up error naming what is wrong and never a value. And the sandbox settings.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readPipeToEnd, readRuntimeEnv } from '../../runtime-image/src/env.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ConfigError } from '../../shared/errors.ts';
import { FORBIDDEN_RUNTIME_ENV, RUNTIME_ENV_NAMES, runtimeEnvironment } from '../../shared/runtime-env.ts';
import { readFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = 'runtime-token-for-the-env-test-0001';
const KEY = 'sk-env-test-secret-value-0123456789';
const config = JSON.stringify(runtimeConfigFor(parseConfig(JSON.parse(readFileSync('clawfleet.json', 'utf8'))), 'fran'));
const base = { CLAWFLEET_AGENT_ID: 'fran', CLAWFLEET_RUNTIME_CONFIG: config, CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1', CLAWFLEET_SECRETS_FD: '3' };
const piped = (text: string) => async () => text;

async function issues(env: Record<string, string>, pipe: (fd: number) => Promise<string> = piped('{}')): Promise<{ path: string; message: string }[]> {
  try {
    await readRuntimeEnv(env, pipe);
  } catch (err) {
    if (err instanceof ConfigError) {
      // Whatever went wrong, the error never repeats a value it was given.
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toContain(TOKEN);
      return err.issues;
    }
    throw err;
  }
  throw new Error('the environment was accepted');
}

describe('the local runtime’s token and secrets', () => {
  it('come from the pipe CLAWFLEET_SECRETS_FD names', async () => {
    const env = await readRuntimeEnv(base, piped(JSON.stringify({ token: TOKEN, secrets: { OPENAI_API_KEY: KEY } })));
    expect(env.transport).toEqual({ kind: 'local', controlUrl: 'http://127.0.0.1:1', token: TOKEN, secrets: { OPENAI_API_KEY: KEY } });
  });

  it('are refused in the environment, naming the variable only', async () => {
    expect(await issues({ ...base, CLAWFLEET_SECRETS: JSON.stringify({ OPENAI_API_KEY: KEY }), CLAWFLEET_RUNTIME_TOKEN: TOKEN })).toEqual([
      { path: 'CLAWFLEET_SECRETS', message: expect.stringContaining('never from its environment') },
      { path: 'CLAWFLEET_RUNTIME_TOKEN', message: expect.stringContaining('never from its environment') },
    ]);
  });

  it('fail the start with what is wrong with the pipe, never a value', async () => {
    const { CLAWFLEET_SECRETS_FD: _fd, ...noFd } = base;
    expect(await issues(noFd)).toEqual([{ path: 'CLAWFLEET_SECRETS_FD', message: expect.stringContaining('is required with CLAWFLEET_CONTROL_URL') }]);
    expect(await issues({ ...base, CLAWFLEET_SECRETS_FD: '1' })).toEqual([{ path: 'CLAWFLEET_SECRETS_FD', message: expect.stringContaining('>=3') }]);
    // (A descriptor nothing opened: this test process's own fd 3 is its test runner's channel.)
    expect(await issues({ ...base, CLAWFLEET_SECRETS_FD: '1000' }, readPipeToEnd)).toEqual([
      { path: 'CLAWFLEET_SECRETS_FD', message: 'names pipe 1000, which cannot be read (EBADF)' },
    ]);
    expect(await issues(base, piped(''))).toEqual([
      { path: 'CLAWFLEET_SECRETS_FD', message: 'names pipe 3, which did not carry JSON (0 bytes; empty means the launcher wrote nothing)' },
    ]);
    expect(await issues(base, piped(`{"token": "${TOKEN}", "secrets": {"OPENAI_API_KEY": "${KEY}"`))).toEqual([
      { path: 'CLAWFLEET_SECRETS_FD', message: expect.stringContaining('did not carry JSON') },
    ]);
    expect(await issues(base, piped(JSON.stringify({ token: 'short', secrets: { OPENAI_API_KEY: 42, OTHER: KEY }, extra: KEY })))).toEqual(
      expect.arrayContaining([
        { path: 'CLAWFLEET_SECRETS_FD.token', message: expect.any(String) },
        { path: 'CLAWFLEET_SECRETS_FD.secrets.OPENAI_API_KEY', message: 'must be string' },
        { path: 'CLAWFLEET_SECRETS_FD', message: expect.stringContaining('extra') },
      ]),
    );
  });

  it('are read to the pipe’s end at start and the pipe closed, so nothing the runtime runs inherits it (a real child and pipe)', async () => {
    const entry = fileURLToPath(new URL('../../runtime-image/src/env.ts', import.meta.url));
    const script = `
      import { fstatSync } from 'node:fs';
      const { readRuntimeEnv } = await import(${JSON.stringify(entry)});
      const env = await readRuntimeEnv(process.env);
      let fd3 = 'open';
      try { fstatSync(3); } catch (err) { fd3 = err.code; }
      process.stdout.write(JSON.stringify({ token: env.transport.token === ${JSON.stringify(TOKEN)}, secret: env.transport.secrets.OPENAI_API_KEY === ${JSON.stringify(KEY)}, fd3, inEnv: JSON.stringify(process.env).includes(${JSON.stringify(KEY)}) }));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...base, CLAWFLEET_WORKSPACE: tempDir('cf-env-') },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    (child.stdio[3] as NodeJS.WritableStream).end(JSON.stringify({ token: TOKEN, secrets: { OPENAI_API_KEY: KEY } }));
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({ token: true, secret: true, fd3: 'EBADF', inEnv: false });
  });
});

describe('the sandbox settings', () => {
  const aws = {
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_RUNTIME_CONFIG: config,
    CLAWFLEET_INBOX_URL: 'http://q/in',
    CLAWFLEET_OUTBOX_URL: 'http://q/out',
    CLAWFLEET_DLQ_URL: 'http://q/dlq',
  };

  it('default to auto with nothing hidden and no tool uids', async () => {
    expect((await readRuntimeEnv(aws)).sandbox).toEqual({ mode: 'auto', bwrap: undefined, toolUids: [], toolGid: undefined, hide: [] });
  });

  it('read the image’s uid pool, bubblewrap’s path and the paths to hide', async () => {
    const env = await readRuntimeEnv({
      ...aws,
      CLAWFLEET_SANDBOX: 'uid-pool',
      CLAWFLEET_TOOL_UIDS: '20001-20004',
      CLAWFLEET_TOOL_GID: '20000',
      CLAWFLEET_BWRAP: '/opt/bwrap',
      CLAWFLEET_SANDBOX_HIDE: '["/srv/state","/srv/secrets.json"]',
    });
    expect(env.sandbox).toEqual({
      mode: 'uid-pool',
      bwrap: '/opt/bwrap',
      toolUids: [20001, 20002, 20003, 20004],
      toolGid: 20000,
      hide: ['/srv/state', '/srv/secrets.json'],
    });
  });

  it('are what the image sets: the uid pool, 32 tool uids and their group (runtime-image/Dockerfile, ENV)', async () => {
    const dockerfile = readFileSync('runtime-image/Dockerfile', 'utf8');
    const image = Object.fromEntries([...dockerfile.matchAll(/^\s*(CLAWFLEET_[A-Z_]+)=(\S+?)(?:\s*\\)?$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(image).toMatchObject({ CLAWFLEET_SANDBOX: 'uid-pool', CLAWFLEET_TOOL_UIDS: '20001-20032', CLAWFLEET_TOOL_GID: '20000' });
    // Every CLAWFLEET_ name the image sets or its health check reads is one of the contract's (shared/runtime-env.ts).
    const named = [...dockerfile.matchAll(/\bCLAWFLEET_[A-Z_]+/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !(RUNTIME_ENV_NAMES as string[]).includes(n))).toEqual([]);
    const env = await readRuntimeEnv({ ...aws, ...image });
    expect(env.sandbox).toMatchObject({ mode: 'uid-pool', toolGid: 20000 });
    expect(env.sandbox.toolUids).toHaveLength(32);
    // The users the image creates are exactly that pool, in that group.
    expect(dockerfile).toContain('groupadd --gid 20000 clawfleet-tools');
    expect(dockerfile).toContain('for uid in $(seq 20001 20032)');
  });

  it('refuse a mode, a uid range or a hide list they cannot read', async () => {
    expect((await issues({ ...aws, CLAWFLEET_SANDBOX: 'chroot' })).map((i) => i.path)).toEqual(['CLAWFLEET_SANDBOX']);
    expect((await issues({ ...aws, CLAWFLEET_TOOL_UIDS: '0-10' }))[0]).toEqual({
      path: 'CLAWFLEET_TOOL_UIDS',
      message: expect.stringContaining('from 1000 up'),
    });
    expect((await issues({ ...aws, CLAWFLEET_TOOL_UIDS: '20010-20001' }))[0]?.path).toBe('CLAWFLEET_TOOL_UIDS');
    expect((await issues({ ...aws, CLAWFLEET_TOOL_UIDS: 'root' }))[0]?.path).toBe('CLAWFLEET_TOOL_UIDS');
    expect(await issues({ ...aws, CLAWFLEET_SANDBOX_HIDE: '["relative/path"]' })).toEqual([
      { path: 'CLAWFLEET_SANDBOX_HIDE', message: 'must be a JSON list of absolute paths' },
    ]);
  });
});

describe('the environment contract (shared/runtime-env.ts)', () => {
  const runtimeConfig = JSON.parse(config);

  it('is what a local launcher writes and the runtime reads back: identity, config, channel, settings', async () => {
    const vars = runtimeEnvironment(
      'fran',
      runtimeConfig,
      { kind: 'local', controlUrl: 'http://127.0.0.1:4100', secretsFd: 3 },
      {
        CLAWFLEET_WORKSPACE: '/srv/ws/fran',
        CLAWFLEET_RUNTIME_STATE: '/srv/runtime/fran',
        CLAWFLEET_SANDBOX_HIDE: JSON.stringify(['/srv/state']),
        CLAWFLEET_MAX_RECEIVE_COUNT: '5',
        CLAWFLEET_OFFLINE_MODEL: undefined,
      },
    );
    expect(Object.keys(vars).sort()).toEqual([
      'CLAWFLEET_AGENT_ID',
      'CLAWFLEET_CONTROL_URL',
      'CLAWFLEET_MAX_RECEIVE_COUNT',
      'CLAWFLEET_RUNTIME_CONFIG',
      'CLAWFLEET_RUNTIME_STATE',
      'CLAWFLEET_SANDBOX_HIDE',
      'CLAWFLEET_SECRETS_FD',
      'CLAWFLEET_WORKSPACE',
    ]);
    const env = await readRuntimeEnv(vars, async (fd) => (fd === 3 ? JSON.stringify({ token: TOKEN, secrets: {} }) : ''));
    expect(env).toMatchObject({
      agentId: 'fran',
      config: runtimeConfig,
      transport: { kind: 'local', controlUrl: 'http://127.0.0.1:4100', token: TOKEN, secrets: {} },
      workspace: '/srv/ws/fran',
      runtimeState: '/srv/runtime/fran',
      maxReceiveCount: 5,
      offlineModel: undefined,
    });
    expect(env.sandbox.hide).toEqual(['/srv/state']);
  });

  it('is what the task definition writes and the runtime reads back on AWS: its own queues and its own secret', async () => {
    const vars = runtimeEnvironment(
      'fran',
      runtimeConfig,
      { kind: 'aws', inboxUrl: 'http://q/in', outboxUrl: 'http://q/out', dlqUrl: 'http://q/dlq', secretId: 'clawfleet/demo/agents/fran' },
      {
        CLAWFLEET_DRAIN_SECONDS: '25',
        CLAWFLEET_HEALTH_FILE: '/tmp/alive',
      },
    );
    const env = await readRuntimeEnv(vars, () => Promise.reject(new Error('no pipe on AWS')));
    expect(env).toMatchObject({
      transport: { kind: 'aws', inboxUrl: 'http://q/in', outboxUrl: 'http://q/out', dlqUrl: 'http://q/dlq' },
      secretId: 'clawfleet/demo/agents/fran',
      drainMs: 25_000,
      healthFile: '/tmp/alive',
    });
  });

  it('names no secret: the refused names are not the contract’s', () => {
    expect(RUNTIME_ENV_NAMES).toContain('CLAWFLEET_SECRETS_FD');
    expect(RUNTIME_ENV_NAMES.filter((n) => (FORBIDDEN_RUNTIME_ENV as readonly string[]).includes(n))).toEqual([]);
  });
});
