// `clawfleet workspace push|pull` while `npm start`'s fleet runs: refused while the agent's
// runtime runs, unless --hibernate, which stops it through the admin API for the copy and
// wakes it afterwards — and then it answers from what was pushed. Meanwhile nothing wakes
// it: a message waits and is answered once the transfer has ended.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { readAdminFile } from '../../local/admin-file.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEY = 'sk-test-wslocal-fran-0123456789abcdef';
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;

beforeAll(async () => {
  model = await startModel({
    apiKey: KEY,
    responder: (r) => {
      const system = JSON.stringify((r.body as { messages: unknown[] }).messages[0]);
      return { text: r.lastUserText.includes('cat') && system.includes('cat is called Miso') ? 'Your cat is Miso.' : `echo: ${r.lastUserText}` };
    },
  });
  dir = tempDir('cf-wsfleet-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: KEY } }));
  fleet = await startFleet({ dir, running: ['fran'] });
  mkdirSync(join(dir, 'mine'));
  writeFileSync(join(dir, 'mine', 'MEMORY.md'), "- Sam's cat is called Miso.\n");
});

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
});

async function workspace(...argv: string[]) {
  const io = captureIO({ cwd: dir });
  const code = await runCli(['workspace', ...argv, '--state', 'state'], io);
  return { code, out: io.outText(), err: io.errText() };
}

async function replyContaining(text: string): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(async () => (found = (await chatLines(fleet, 'fran')).find((m) => m.role === 'agent' && m.text.includes(text))?.text), {
      timeout: 30_000,
      interval: 100,
    })
    .toBeTruthy();
  return found!;
}

async function admin(path: string, body: unknown = {}) {
  const file = readAdminFile(join(dir, 'state'))!;
  const res = await fetch(`${file.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${file.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('workspace push and pull with the local fleet running', () => {
  it('refuses while the agent runs, writing nothing and leaving it running', async () => {
    const pid = fleet.supervisor.pid('fran');
    const r = await workspace('push', '--agent', 'fran', 'mine');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/fran is awake: its runtime would write the workspace during the transfer\. Pass --hibernate/);
    expect(readdirSync(join(dir, 'state', 'workspaces', 'fran'))).not.toContain('MEMORY.md.bak');
    expect(readFileSync(join(dir, 'state', 'workspaces', 'fran', 'MEMORY.md'), 'utf8')).not.toContain('Miso');
    expect(fleet.supervisor.pid('fran')).toBe(pid);
  });

  it('with --hibernate finds a conflict before it stops the agent, and leaves it running', async () => {
    const pid = fleet.supervisor.pid('fran');
    const r = await workspace('push', '--agent', 'fran', 'mine', '--hibernate');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /nothing was copied and fran was left as it was:\n {2}MEMORY\.md: exists with other content \(--force replaces it\) \(WORKSPACE_CONFLICT\)/,
    );
    expect(r.err).not.toContain('held by the running fleet');
    expect(fleet.supervisor.pid('fran')).toBe(pid);
    expect(fleet.supervisor.state('fran')).toBe('running');
  });

  it('with --hibernate stops the agent for the copy, wakes it, and it answers from what was pushed', async () => {
    const before = fleet.supervisor.pid('fran');
    const r = await workspace('push', '--agent', 'fran', 'mine', '--hibernate', '--force');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/fran held by the running fleet for the transfer \(it was awake: its runtime was stopped\)[\s\S]*fran released and woken/);
    expect(readFileSync(join(dir, 'state', 'workspaces', 'fran', 'MEMORY.md'), 'utf8')).toBe("- Sam's cat is called Miso.\n");
    await expect.poll(() => fleet.supervisor.state('fran'), { timeout: 30_000, interval: 100 }).toBe('running');
    expect(fleet.supervisor.pid('fran')).not.toBe(before);
    expect((await postChat(fleet, 'fran', 'what is my cat called?')).status).toBe(202);
    expect(await replyContaining('Miso')).toBe('Your cat is Miso.');
  });

  it('wakes nothing while an agent is held: a message waits, and is answered once it is released', async () => {
    const holdId = 'cli-hold-0000000001';
    const held = await admin('/admin/agents/fran/hold', { hibernate: true, holdId });
    expect(held).toMatchObject({ status: 200, body: { state: 'held', from: 'awake' } });
    expect(fleet.supervisor.state('fran')).toBe('hibernating');
    expect((await postChat(fleet, 'fran', 'are you there while held?')).status).toBe(202);
    // The chat's wake was decided before it answered 202: the agent stays down.
    expect(fleet.cp.registry.record('fran')?.state).toBe('held');
    expect(fleet.supervisor.state('fran')).toBe('hibernating');
    expect(await admin('/admin/agents/fran/wake')).toMatchObject({
      status: 409,
      body: { code: 'AGENT_HELD', error: expect.stringMatching(/held for a workspace transfer/) },
    });
    expect(await admin('/admin/agents/fran/hold', { hibernate: true, holdId: 'cli-hold-0000000002' })).toMatchObject({
      status: 409,
      body: { code: 'AGENT_HELD' },
    });
    // Another CLI's id (or none) neither renews nor releases this hold.
    expect(await admin('/admin/agents/fran/renew', { holdId: 'cli-hold-0000000002' })).toMatchObject({ status: 200, body: { held: false } });
    expect(await admin('/admin/agents/fran/release', { holdId: 'cli-hold-0000000002' })).toMatchObject({ status: 200, body: { outcome: 'lost' } });
    expect(await admin('/admin/agents/fran/release')).toMatchObject({ status: 400, body: { code: 'HOLD_INVALID' } });
    expect(fleet.cp.registry.record('fran')?.state).toBe('held');
    expect(await admin('/admin/agents/fran/renew', { holdId })).toMatchObject({ status: 200, body: { held: true } });
    expect(await admin('/admin/agents/fran/release', { holdId })).toMatchObject({ status: 200, body: { outcome: 'woken' } });
    expect(await replyContaining('are you there while held?')).toBe('echo: are you there while held?');
  });

  it('pulls the workspace out, transcripts and all, as a person’s backup', async () => {
    const r = await workspace('pull', '--agent', 'fran', 'fran-backup', '--hibernate');
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(dir, 'fran-backup', 'MEMORY.md'), 'utf8')).toContain('Miso');
    const transcripts = readdirSync(join(dir, 'fran-backup', 'sessions'));
    expect(transcripts.some((f) => f.startsWith('agent_fran_main.'))).toBe(true);
    await expect.poll(() => fleet.supervisor.state('fran'), { timeout: 30_000, interval: 100 }).toBe('running');
  });
});
