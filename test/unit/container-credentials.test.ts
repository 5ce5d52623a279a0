// ECS's task credentials settings out of the runtime's environment (runtime-image/src/
// container-credentials.ts): a runtime started with them writes them where only its own user
// reads, re-executes itself without them, and the new process takes them (read once, deleted).
// The re-execution itself is faked here (the real one, on Node 24 and the bundle, is
// test/integration/task-credentials.test.ts and test/security/container-credentials.test.ts);
// every refusal names a variable or path, never a value.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultProvider as sdkChain } from '@aws-sdk/credential-provider-node';
import {
  CONTAINER_VARIABLES,
  HANDOFF_FILE,
  handOffContainerCredentials,
  launchWithout,
  takeContainerCredentials,
  type ReExec,
} from '../../runtime-image/src/connection/container-credentials.ts';
import { defaultProvider as runtimeChain, setTaskCredentials } from '../../runtime-image/src/connection/sdk-credential-chain.ts';
import { useContainerCredentials } from '../../runtime-image/src/connection/task-credentials.ts';
import { ConfigError } from '../../shared/errors.ts';
import { tempDir } from '../support/temp-dirs.ts';

const URI = `/v2/credentials/${crypto.randomUUID()}`;
const TOKEN = `tok-${crypto.randomUUID()}`;
const METADATA = `http://169.254.170.2/v4/${crypto.randomUUID()}`;

let dir: string;
let state: string;
beforeEach(() => {
  dir = tempDir('cf-handoff-');
  state = join(dir, 'state');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A re-execution that records what it was asked and, like execve, does not return. */
function fakeExec(over: Partial<ReExec> = {}) {
  const calls: { file: string; args: string[]; env: NodeJS.ProcessEnv; handoff: string; mode: number; taken: unknown; again: unknown }[] = [];
  const re: ReExec = {
    execPath: '/usr/local/bin/node',
    execArgv: ['--enable-source-maps', '--max-semi-space-size=1'],
    argv: ['/usr/local/bin/node', '/app/dist/main.mjs'],
    nodeVersion: 'v24.22.3',
    execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => {
      // What the new process would find: the file, only its user's, which it takes once.
      const handoff = readFileSync(join(state, HANDOFF_FILE), 'utf8');
      const mode = lstatSync(join(state, HANDOFF_FILE)).mode & 0o777;
      calls.push({ file, args, env, handoff, mode, taken: takeContainerCredentials(state), again: takeContainerCredentials(state) });
      throw Object.assign(new Error('replaced'), { replaced: true });
    }) as never,
    ...over,
  };
  return { re, calls };
}

function handOff(env: NodeJS.ProcessEnv, re: ReExec): unknown {
  try {
    handOffContainerCredentials(env, state, re);
    return undefined;
  } catch (err) {
    return err;
  }
}

const refusal = (err: unknown) => {
  expect(err).toBeInstanceOf(ConfigError);
  const message = (err as Error).message;
  for (const value of [URI, TOKEN, METADATA]) expect(message).not.toContain(value);
  return (err as ConfigError).issues;
};

describe('taking ECS’s credentials settings out of the environment', () => {
  it('does nothing where ECS put none (local mode, the tests): no file, no re-execution', () => {
    const { re, calls } = fakeExec();
    expect(handOff({ CLAWFLEET_AGENT_ID: 'fran', PATH: '/usr/bin' }, re)).toBeUndefined();
    expect(calls).toEqual([]);
    expect(existsSync(state)).toBe(false);
    expect(takeContainerCredentials(state)).toBeUndefined();
  });

  it('re-executes the same node with the same arguments and an environment without any of them', () => {
    const { re, calls } = fakeExec();
    const env = {
      CLAWFLEET_AGENT_ID: 'fran',
      PATH: '/usr/bin',
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI,
      ECS_CONTAINER_METADATA_URI_V4: METADATA,
      ECS_CONTAINER_METADATA_URI: METADATA,
    };
    expect(handOff(env, re)).toMatchObject({ replaced: true });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.file).toBe('/usr/local/bin/node');
    expect(call!.args).toEqual(['/usr/local/bin/node', '--enable-source-maps', '--max-semi-space-size=1', '/app/dist/main.mjs']);
    expect(call!.env).toEqual({ CLAWFLEET_AGENT_ID: 'fran', PATH: '/usr/bin' });
    for (const name of CONTAINER_VARIABLES) expect(JSON.stringify(call!.env)).not.toContain(name);
    // The metadata URIs are dropped, not handed over: nothing in the runtime reads them.
    expect(JSON.parse(call!.handoff)).toEqual({ relativeUri: URI });
  });

  it('leaves the settings in a file only the runtime’s user can read, which the next process takes once and deletes', () => {
    const { re, calls } = fakeExec();
    handOff(
      {
        AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://127.0.0.1:9/creds',
        AWS_CONTAINER_AUTHORIZATION_TOKEN: TOKEN,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: '/var/run/token',
      },
      re,
    );
    const [call] = calls;
    expect(call!.mode).toBe(0o600);
    expect(lstatSync(state).mode & 0o077).toBe(0);
    expect(call!.taken).toEqual({ fullUri: 'http://127.0.0.1:9/creds', token: TOKEN, tokenFile: '/var/run/token' });
    expect(call!.again).toBeUndefined();
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
  });

  it('refuses to run with them on a Node that cannot re-execute itself (Node 20), naming the variable, writing nothing', () => {
    const { re } = fakeExec({ execve: undefined, nodeVersion: 'v20.20.0' });
    const issues = refusal(handOff({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI }, re));
    expect(issues).toEqual([
      { path: 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', message: expect.stringMatching(/Node v20\.20\.0 cannot re-execute itself.*Node >= 22\.15/) },
    ]);
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
  });

  it('refuses them in a local runtime, whose launcher never passes them on', () => {
    const { re, calls } = fakeExec();
    const issues = refusal(handOff({ CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1', AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI }, re));
    expect(issues[0]).toMatchObject({ path: 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', message: expect.stringContaining('local one') });
    expect(calls).toEqual([]);
  });

  it('deletes the file again when the re-execution fails, and says why', () => {
    const { re } = fakeExec({
      execve: (() => {
        throw Object.assign(new Error('execve ENOENT'), { code: 'ENOENT' });
      }) as never,
    });
    expect(handOff({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI }, re)).toMatchObject({ code: 'ENOENT' });
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
  });

  it('refuses a state directory others may write, where the file could be swapped', () => {
    const { re, calls } = fakeExec();
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const issues = refusal(catching(() => handOffContainerCredentials({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI }, shared, re)));
    expect(issues[0]).toMatchObject({ path: 'CLAWFLEET_RUNTIME_STATE', message: expect.stringContaining('mode 777') });
    expect(existsSync(join(shared, HANDOFF_FILE))).toBe(false);
    expect(calls).toEqual([]);
  });

  it('takes only a file the runtime left: not one others can read, not a link, not one it did not write', () => {
    mkdirSync(state, { mode: 0o700 });
    const file = join(state, HANDOFF_FILE);
    writeFileSync(file, JSON.stringify({ relativeUri: URI }), { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(refusal(catching(() => takeContainerCredentials(state)))[0]).toMatchObject({ message: expect.stringContaining('mode 644') });
    expect(existsSync(file)).toBe(false);

    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ relativeUri: URI }), { mode: 0o600 });
    symlinkSync(join(dir, 'elsewhere.json'), file);
    expect(refusal(catching(() => takeContainerCredentials(state)))[0]).toMatchObject({ message: expect.stringContaining('ELOOP') });

    rmSync(file);
    writeFileSync(file, `{"relativeUri": "${URI}", "extra": "${TOKEN}"}`, { mode: 0o600 });
    expect(refusal(catching(() => takeContainerCredentials(state)))[0]).toMatchObject({ message: expect.stringContaining('not what the runtime writes') });
    expect(existsSync(file)).toBe(false);
  });
});

describe('the runtime’s credential chain', () => {
  it('is the SDK’s own until task credentials are set, then theirs for every client, after keys in the environment as in the SDK’s order', () => {
    const init = {};
    const task = async () => ({ accessKeyId: 'AKIDTASK', secretAccessKey: 'secret' });
    const saved = { key: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    expect(runtimeChain(init)).not.toBe(task);
    setTaskCredentials(task);
    try {
      expect(runtimeChain(init)).toBe(task);
      expect(runtimeChain({ profile: 'other' })).toBe(task);
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDSTATIC', AWS_SECRET_ACCESS_KEY: 'static' });
      expect(runtimeChain(init)).not.toBe(task);
    } finally {
      setTaskCredentials(undefined);
      for (const [name, value] of [
        ['AWS_ACCESS_KEY_ID', saved.key],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('refuses task credentials where the SDK’s clients would not ask for them (the sources, not the bundle)', () => {
    // Under vitest the SDK's chain is its own: only the runtime bundle puts the runtime's in its place.
    expect(sdkChain).not.toBe(runtimeChain);
    expect(() => useContainerCredentials({ relativeUri: URI })).toThrow(/run the runtime bundle/);
  });
});

function catching(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('it was accepted');
}

describe('the image’s entry (launch.ts): PID 1 becomes tini without them', () => {
  const TINI = ['/usr/bin/tini', '--', 'node', '--enable-source-maps', '/app/dist/main.mjs'];
  const launch = (env: NodeJS.ProcessEnv, re: ReExec, command: string[] = TINI): unknown => {
    try {
      return launchWithout(env, state, command, re);
    } catch (err) {
      return err;
    }
  };

  it('hands the settings over and becomes tini, with its command line, in an environment without any of them', () => {
    const { re, calls } = fakeExec();
    const env = { CLAWFLEET_AGENT_ID: 'fran', PATH: '/usr/bin', AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI, ECS_CONTAINER_METADATA_URI_V4: METADATA };
    expect(launch(env, re)).toMatchObject({ replaced: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.file).toBe('/usr/bin/tini');
    expect(calls[0]!.args).toEqual(TINI);
    expect(calls[0]!.env).toEqual({ CLAWFLEET_AGENT_ID: 'fran', PATH: '/usr/bin' });
    // What the runtime, tini's child, takes at its start.
    expect(calls[0]!.taken).toEqual({ relativeUri: URI });
    expect(calls[0]!.mode).toBe(0o600);
  });

  it('becomes tini unchanged where ECS put none, writing nothing', () => {
    const { re, calls } = fakeExec();
    const env = { CLAWFLEET_AGENT_ID: 'fran', PATH: '/usr/bin' };
    // Nothing handed over: the fake's execve finds no file to read.
    const execve = ((file: string, args: string[], e: NodeJS.ProcessEnv) => {
      calls.push({ file, args, env: e, handoff: '', mode: 0, taken: undefined, again: undefined });
      throw Object.assign(new Error('replaced'), { replaced: true });
    }) as never;
    expect(launch(env, { ...re, execve })).toMatchObject({ replaced: true });
    expect(calls).toEqual([expect.objectContaining({ file: '/usr/bin/tini', args: TINI, env })]);
    expect(existsSync(state)).toBe(false);
  });

  it('refuses a command that is not an absolute path, and a Node that cannot replace itself, writing nothing', () => {
    const { re } = fakeExec();
    const env = { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: URI };
    expect(refusal(launch(env, re, ['tini', '--']))).toEqual([expect.objectContaining({ path: 'argv' })]);
    expect(refusal(launch(env, { ...re, execve: undefined }))[0]!.path).toBe('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI');
    expect(refusal(launch({}, { ...re, execve: undefined }))[0]!.path).toBe('argv');
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
  });
});
