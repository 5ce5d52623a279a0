// Issue #12, "Why" 1: through `exec`, one local agent read another's secrets and tokens
// (its runtime's /proc/<pid>/environ, every /proc/*/environ, the admin and dashboard
// tokens, the secrets file with every bot token) and spoke as it on /runtime/outbox. Here
// a real local fleet (startLocalFleet, runtimes as child processes, the fake model
// scripting the tool calls) runs that attack from agent alpha, in bubblewrap: nothing it
// prints holds a secret or token, and a forged outbox post with anything it can find is
// refused. Agent gamma runs the same probe with `tools.exec.sandbox: "off"` and its runtime
// out of its box (`runtime.localSandbox: "off"`, issue #27): it does reach the state
// directory — the probe is real — but even unsandboxed it finds no runtime's token or secrets
// in any environment (they travel on a pipe now), and the fleet reports gamma's unsandboxed
// exec in `clawfleet status`. (With its runtime boxed, test/security/runtime-box.test.ts
// shows the same probe finding nothing.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFilePath, readAdminFile } from '../../local/admin-file.ts';
import { dashboardTokenPath } from '../../local/dashboard-token.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { runCli } from '../../cli/main.ts';
import { memoryLogger } from '../../shared/log.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { writeFigures } from '../support/figures.ts';
import { askChat, execResultResponder, RESULT_PREFIX } from '../support/exec-turns.ts';
import { agentKeySecrets, startFleet, writeFleetFiles } from '../support/local-fleet.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { expectNoSecretsIn } from '../fault/fault-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEYS = {
  alpha: 'sk-sec-alpha-model-key-0123456789abcdef',
  beta: 'sk-sec-beta-model-key-0123456789abcdef0',
  gamma: 'sk-sec-gamma-model-key-0123456789abcdef',
};
const BOT_TOKEN = '7000001:AAsecurity-bot-token-00000000000000000';
let fleet: LocalFleet;
let model: FakeModel;
let dir: string;
let state: string;
let secretsPath: string;
const runtimeLines: string[] = [];
const log = memoryLogger();
const figures: Record<string, unknown> = {};

/** The fake model: `run: <command>` → an exec call; the exec's result → a reply that carries it, so the test can read it. */
const responder = execResultResponder(30);

/** Has `agentId` run `command` with exec, and returns the tool result its answer carries. */
async function exec(agentId: string, command: string): Promise<string> {
  return (await askChat(fleet, agentId, `run: ${command}`, { timeoutMs: 30_000 })).slice(RESULT_PREFIX.length);
}

beforeAll(async () => {
  model = await startModel({ responder });
  dir = tempDir('cf-sec-');
  state = join(dir, 'state');
  secretsPath = join(dir, 'clawfleet.secrets.json');
  const config = {
    fleet: 'sec',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'alpha' }, { id: 'beta' }, { id: 'gamma', tools: { exec: { sandbox: 'off' } }, runtime: { localSandbox: 'off' } }],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
  };
  writeFleetFiles(
    dir,
    config,
    {
      ...agentKeySecrets('sec', KEYS),
      // Not used by this fleet's config, but in the file, as every bot token is.
      'clawfleet/sec/control/telegram': { SEC_BOT_TOKEN: BOT_TOKEN },
    },
    secretsPath,
  );
  fleet = await startFleet({
    dir,
    secretsPath,
    stateDir: state,
    log,
    running: ['alpha', 'beta', 'gamma'],
    onRuntimeLine: (agentId, line) => runtimeLines.push(`${agentId} ${JSON.stringify(line)}`),
  });
  writeFileSync(join(state, 'workspaces', 'beta', 'diary.md'), 'beta’s private notes\n');
});

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
});

/** Everything a probe should never print: model keys, the bot token, the admin and dashboard tokens. */
function secretValues(): string[] {
  return [...Object.values(KEYS), BOT_TOKEN, readAdminFile(state)!.token, readFileSync(dashboardTokenPath(state), 'utf8').trim()];
}

/**
 * The attacker's script: every place issue #12 found secrets, one section each (stderr
 * with stdout, in order). Other processes' environments are cut to the lines that matter
 * (names of ours, keys, tokens) — and, for an unsandboxed run, to this fleet's processes:
 * other test runs on a shared machine are none of this test's business.
 */
const probe = (onlyThisFleet = false) =>
  [
    `echo "== admin"; cat ${adminFilePath(state)}`,
    `echo "== dashboard token"; cat ${dashboardTokenPath(state)}`,
    `echo "== secrets file"; cat ${secretsPath}`,
    `echo "== beta workspace"; ls ${join(state, 'workspaces', 'beta')}; cat ${join(state, 'workspaces', 'beta', 'diary.md')}`,
    `echo "== state"; ls ${state}`,
    `echo "== home"; ls -a ${process.env.HOME ?? '/root'}`,
    'echo "== env"; env',
    `echo "== runtime environ"; tr '\\0' '\\n' </proc/$PPID/environ`,
    `echo "== all environ"; for f in /proc/[0-9]*/environ; do ${onlyThisFleet ? `tr '\\0' '\\n' <"$f" | grep -qx "CLAWFLEET_CONTROL_URL=${fleet.url}" &&` : ''} tr '\\0' '\\n' <"$f" | grep -aE '^CLAWFLEET_|sk-|TOKEN|SECRET'; done`,
    'echo "== done"',
  ]
    .map((line) => `{ ${line}; } 2>&1`)
    .join('\n');

/**
 * A forged POST to /runtime/outbox with every token-shaped string the caller could find
 * (hex of 32+ characters in what its probe printed) and a made-up one: the HTTP statuses.
 */
const forge = (url: string, found: string) => {
  const candidates = [...new Set([...(found.match(/[0-9a-f]{32,}/g) ?? []), 'f'.repeat(48)])];
  const script = `
    const url = ${JSON.stringify(`${url}/runtime/outbox`)};
    const body = JSON.stringify({ envelope: { v: ${PROTOCOL_VERSION}, kind: 'reply', id: 'forged.1', agentId: 'beta', sessionKey: 'agent:beta:main', ts: 1, text: 'I am beta', inReplyTo: 'x' } });
    for (const token of ${JSON.stringify(candidates)}) {
      const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body });
      console.log('status', res.status);
    }`;
  return `node --input-type=module -e ${shellQuote(script)}`;
};
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('an agent’s exec, in the sandbox', () => {
  let alphaSaw = '';

  it('finds no secret or token anywhere issue #12 found them', async () => {
    alphaSaw = await exec('alpha', probe());
    expect(alphaSaw).toContain('== done');
    const scan = new SecretScan();
    scan.addSecrets(...secretValues());
    scan.record('alpha exec output', alphaSaw);
    expect(scan.hits()).toEqual([]);
    // And not by luck: each place is simply not there for it.
    expect(alphaSaw).toMatch(/== admin\n.*No such file or directory/);
    expect(alphaSaw).toMatch(/== secrets file\n.*No such file or directory/);
    expect(alphaSaw).toMatch(/== beta workspace\n.*No such file or directory/);
    expect(alphaSaw).not.toMatch(/CLAWFLEET_|AWS_/);
    expect(alphaSaw).not.toContain('beta’s private notes');
    Object.assign(figures, {
      probeSections: (alphaSaw.match(/^== /gm) ?? []).length - 1,
      secretValuesLookedFor: secretValues().length,
      alphaOutputBytes: Buffer.byteLength(alphaSaw),
      secretHits: scan.hits().length,
    });
  });

  it('cannot post as another agent: a forged /runtime/outbox post with anything it found is refused', async () => {
    const out = await exec('alpha', forge(fleet.url, alphaSaw));
    const statuses = [...out.matchAll(/^status (\d+)$/gm)].map((m) => Number(m[1]));
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(fleet.cp.dlq('beta').depth).toBe(0);
    Object.assign(figures, { forgedOutboxPosts: statuses.length, forgedOutboxStatuses: [...new Set(statuses)] });
  });
});

describe('an agent’s exec with tools.exec.sandbox "off"', () => {
  it('reaches the state directory (the probe is real), yet finds no runtime token or secret in any environment', async () => {
    const saw = await exec('gamma', probe(true));
    // Unsandboxed and unboxed, the same user's files are open to it: what the two take away.
    expect(saw).toContain(readAdminFile(state)!.token);
    // Every runtime's environment, its own and the others' (same user: readable), holds names only.
    const environs = saw.slice(saw.indexOf('== runtime environ'), saw.indexOf('== done'));
    expect(environs).toContain('CLAWFLEET_AGENT_ID=beta');
    expect(environs).toContain('CLAWFLEET_SECRETS_FD=3');
    for (const secret of Object.values(KEYS)) expect(environs).not.toContain(secret);
    expect(environs).not.toMatch(/CLAWFLEET_(SECRETS|RUNTIME_TOKEN)=/);
    // No runtime token either: a forged post with every hex string of those environments is refused.
    const out = await exec('gamma', forge(fleet.url, environs));
    expect(new Set([...out.matchAll(/^status (\d+)$/gm)].map((m) => Number(m[1])))).toEqual(new Set([401]));
  });

  it('is reported: `clawfleet status` names the agent and the warning', async () => {
    const io = captureIO({ cwd: dir });
    expect(await runCli(['status', '--state', state], io)).toBe(0);
    expect(io.outText()).toMatch(/^Warnings:\n {2}⚠ gamma: exec runs UNSANDBOXED \(tools\.exec\.sandbox is "off"\)/m);
    expect(io.outText()).not.toMatch(/⚠ (alpha|beta):/);
  });
});

describe('what the fleet wrote meanwhile', () => {
  it('holds no secret value: the runtimes’ and the control plane’s log lines, alpha’s and beta’s chats', () => {
    const scan = new SecretScan();
    // gamma's chat is left out on purpose: unsandboxed, its exec printed the admin token (the control above).
    scan.addSecrets(...Object.values(KEYS), BOT_TOKEN, readFileSync(dashboardTokenPath(state), 'utf8').trim());
    scan.addSource('runtime log lines', () => runtimeLines.join('\n'));
    scan.addSource('control plane log lines', () => log.lines.map((l) => JSON.stringify(l)).join('\n'));
    for (const agent of ['alpha', 'beta'])
      scan.addSource(`${agent} chat`, () =>
        fleet.cp.chat
          .since(agent, 0)
          .messages.map((m) => m.text)
          .join('\n'),
      );
    expectNoSecretsIn(scan, 'cross-agent-exec');
    writeFigures('cross-agent-exec', { command: 'npx vitest run test/security/cross-agent-exec.test.ts', ...figures });
  });
});
