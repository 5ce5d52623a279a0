// Agents come and go: an agent is removed only once the config no longer lists it, after a
// printed plan and a confirmation; steps run in order and the first failure stops the rest
// with what to do. Locally (`clawfleet agents remove|prune` on a stopped fleet's state
// directory) its workspace, runtime state and log are archived, not deleted, and every record
// that names it leaves state.db — while the records of an agent whose id it prefixes stay.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { confirmRemoval, checkRemovable, runRemoval, strayAgents, StepFailed, type RemovalPlan } from '../../cli/agents/removal.ts';
import { runCli } from '../../cli/main.ts';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { lockStateDir, type StateLock } from '../../local/state-lock.ts';
import { FileSecretStore } from '../../local/secrets-file.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const EXAMPLE: FleetConfigInput = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
/** The example plus `old` (to be removed) and `old-timer` (kept: its id starts with "old-"). */
const WITH_OLD: FleetConfigInput = { ...EXAMPLE, agents: { ...EXAMPLE.agents, list: [...EXAMPLE.agents.list, { id: 'old' }, { id: 'old-timer' }] } };
const WITHOUT_OLD: FleetConfigInput = { ...EXAMPLE, agents: { ...EXAMPLE.agents, list: [...EXAMPLE.agents.list, { id: 'old-timer' }] } };

const locks: StateLock[] = [];
afterEach(() => locks.splice(0).forEach((l) => l.release()));

function step(name: string, run: RemovalPlan['steps'][number]['run']): RemovalPlan['steps'][number] {
  return { name, plan: `do ${name}`, run };
}

describe('removing an agent', () => {
  it('refuses an agent the config still lists, saying what to do first, and an id that is none', () => {
    const config = parseConfig(EXAMPLE);
    expect(() => checkRemovable(config, 'fran')).toThrow(
      /agent "fran" is still in the config: remove it from agents\.list \(and from bindings, cron\.jobs and agentToAgent\) first, then deploy the control plane \(npx cdk deploy demo-control-plane\)/,
    );
    expect(() => checkRemovable(config, '../etc')).toThrow(/is not an agent id/);
    expect(() => checkRemovable(config, 'old')).not.toThrow();
  });

  it('runs the steps in order and stops at the first failure, with its hint and what was not done', async () => {
    const ran: string[] = [];
    const plan: RemovalPlan = {
      agentId: 'old',
      where: 'test',
      notes: [],
      steps: [
        step('stop', async () => (ran.push('stop'), { status: 'done', detail: 'stopped' })),
        step('archive', async () => (ran.push('archive'), { status: 'skipped', detail: 'nothing there' })),
        step('stack', async () => {
          ran.push('stack');
          throw new StepFailed('stack is DELETE_FAILED: Queue (AWS::SQS::Queue): busy', 'fix it and run this again');
        }),
        step('records', async () => (ran.push('records'), { status: 'done', detail: 'gone' })),
      ],
    };
    const io = captureIO();
    expect(await runRemoval(plan, io)).toBe(false);
    expect(ran).toEqual(['stop', 'archive', 'stack']);
    expect(io.outText()).toBe('  ✓ stop: stopped\n  – archive: nothing there');
    expect(io.errText()).toBe('  ✗ stack: stack is DELETE_FAILED: Queue (AWS::SQS::Queue): busy\n    fix it and run this again\n    not done: records');
  });

  it('asks for the agent’s id on a terminal, needs --yes without one, and takes nothing else for a yes', async () => {
    await expect(confirmRemoval(['old'], captureIO(), false)).rejects.toThrow(/standard input is not a terminal to confirm on: pass --yes to remove old/);
    expect(await confirmRemoval(['old'], captureIO(), true)).toBe(true);
    const no = captureIO({ answers: ['y'] });
    expect(await confirmRemoval(['old'], no, false)).toBe(false);
    expect(no.errText()).toBe('not confirmed: nothing was removed');
    const yes = captureIO({ answers: [' old a b '.trim().split(' ')[0]!] });
    expect(await confirmRemoval(['old'], yes, false)).toBe(true);
    expect(yes.asked).toEqual([{ question: 'Type the agent id (old) to remove it: ', secret: false }]);
  });

  it('finds as strays only valid ids the config does not list, each with where it was found', () => {
    const config = parseConfig(WITHOUT_OLD);
    const found = [
      { id: 'old', where: 'stack demo-agent-old' },
      { id: 'old', where: 'registry' },
      { id: 'old-timer', where: 'registry' },
      { id: 'fran', where: 'stack demo-agent-fran' },
      { id: 'Not_An_Id', where: 'stack demo-agent-Not_An_Id' },
      { id: 'gone', where: 'schedule agent-gone-x' },
    ];
    expect(strayAgents(config, found)).toEqual([
      { id: 'gone', found: ['schedule agent-gone-x'] },
      { id: 'old', found: ['stack demo-agent-old', 'registry'] },
    ]);
  });
});

/** A stopped local fleet's state directory in which `old` and `old-timer` both left everything a running fleet leaves. */
async function localState(): Promise<{ dir: string; state: string }> {
  const dir = tempDir('cf-remove-');
  const state = join(dir, '.clawfleet');
  mkdirSync(state, { mode: 0o700 });
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(WITHOUT_OLD));
  const db = openStateDatabase(join(state, 'state.db'));
  const cp = new LocalControlPlane(parseConfig(WITH_OLD), db, new FileSecretStore(join(dir, 'none.json')), systemClock, memoryLogger());
  for (const id of ['old', 'old-timer']) {
    await cp.chatMessage(id, `hello ${id}`);
    await cp.registry.transition(id, ['absent'], 'awake', Date.now());
    await cp.registry.recordHeartbeat(id, Date.now(), 'test', undefined, ['a warning']);
    await cp.metrics.recordTurn({ agentId: id, inboundId: `in.${id}`, outcome: 'ended', at: Date.now() });
    await cp.inboxDlq(id).put('{}', 'parked for the test');
    await cp.scheduler.put({ name: `agent-${id}-tidy`, expression: 'rate(1 day)', input: JSON.stringify({ v: 1, kind: 'cron', agentId: id, jobId: 'tidy' }) });
    mkdirSync(join(state, 'workspaces', id, 'sessions'), { recursive: true });
    writeFileSync(join(state, 'workspaces', id, 'MEMORY.md'), `memory of ${id}`);
    mkdirSync(join(state, 'runtime', id), { recursive: true });
    mkdirSync(join(state, 'logs'), { recursive: true });
    writeFileSync(join(state, 'logs', `${id}.log`), `{"msg":"ready","agentId":"${id}"}\n`);
  }
  await cp.relayRates.take('old', 'old-timer', 0, 60_000, 5);
  await cp.relayRates.take('fran', 'old', 0, 60_000, 5);
  db.close();
  return { dir, state };
}

/** What state.db holds of each agent, table by table. */
function holdings(state: string, agentId: string): Record<string, number> {
  const db = openStateDatabase(join(state, 'state.db'));
  const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
  try {
    return {
      queued: n('SELECT count(*) AS n FROM queue_messages WHERE queue = ?', `agent-${agentId}`),
      parked: n('SELECT count(*) AS n FROM dead_letters WHERE queue = ?', `agent-${agentId}-dlq`),
      sessions: n('SELECT count(*) AS n FROM sessions WHERE agent_id = ?', agentId),
      origins: n("SELECT count(*) AS n FROM inbound_origins WHERE json_extract(record, '$.agentId') = ?", agentId),
      status: n('SELECT count(*) AS n FROM agent_status WHERE agent_id = ?', agentId),
      metrics:
        n('SELECT count(*) AS n FROM agent_activity WHERE agent_id = ?', agentId) + n('SELECT count(*) AS n FROM agent_turns WHERE agent_id = ?', agentId),
      chat: n('SELECT count(*) AS n FROM chat_lines WHERE chat_id = ?', agentId),
      schedules: n("SELECT count(*) AS n FROM cron_schedules WHERE json_extract(input, '$.agentId') = ?", agentId),
      relays: n('SELECT count(*) AS n FROM relay_rates WHERE pair LIKE ? OR pair LIKE ?', `${agentId}>%`, `%>${agentId}`),
    };
  } finally {
    db.close();
  }
}

describe('clawfleet agents (local)', () => {
  it('prunes an agent the config no longer lists: plan, archive, schedules and records, leaving the agent whose id it prefixes alone', async () => {
    const { dir, state } = await localState();
    const before = holdings(state, 'old-timer');
    expect(Object.values(holdings(state, 'old')).every((n) => n > 0)).toBe(true);

    const dry = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'prune', '--dry-run'], dry)).toBe(0);
    expect(dry.outText()).toContain('not in the config: old (workspace, log, status, sessions, queued messages, schedules)');
    expect(dry.outText()).toMatch(
      /remove agent old from fleet "demo", state in .*\.clawfleet:\n {2}1\. archive: move .*workspaces\/old, its runtime state and log to .*archive\/old-<date>\/\n {2}2\. schedules: .*\n {2}3\. records: .*\n {2}! 1 message\(s\) still waiting in its queue are deleted\n {2}! 1 message\(s\) parked in its DLQs are deleted\n {2}! its values in the secrets file \(clawfleet\/demo\/agents\/old\) are left there/,
    );
    expect(dry.outText()).toMatch(/dry run: nothing was changed$/);
    expect(existsSync(join(state, 'workspaces', 'old'))).toBe(true);

    const io = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'prune', '--yes'], io), io.errText()).toBe(0);
    expect(io.outText()).toMatch(/ {2}✓ archive: moved workspace, runtime, log to .*\/archive\/old-\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z\n/);
    expect(io.outText()).toContain('  ✓ schedules: deleted agent-old-tidy');
    expect(io.outText()).toMatch(
      / {2}✓ records: deleted 1 queue_messages, 1 queue_dedup, 1 dead_letters, 1 sessions, 1 inbound_origins, 2 relay_rates, 1 agent_status, \d agent_activity, 1 agent_turns, 1 chat_lines\nagent old removed/,
    );

    // Archived, not deleted: its memory is there, in a directory only its owner may enter.
    const [archived] = readdirSync(join(state, 'archive'));
    expect(readFileSync(join(state, 'archive', archived!, 'workspace', 'MEMORY.md'), 'utf8')).toBe('memory of old');
    expect(existsSync(join(state, 'archive', archived!, 'runtime'))).toBe(true);
    expect(readFileSync(join(state, 'archive', archived!, 'old.log'), 'utf8')).toContain('"agentId":"old"');
    expect(statSync(join(state, 'archive', archived!)).mode & 0o077).toBe(0);
    for (const gone of [join(state, 'workspaces', 'old'), join(state, 'runtime', 'old'), join(state, 'logs', 'old.log')]) expect(existsSync(gone)).toBe(false);
    expect(holdings(state, 'old')).toEqual({ queued: 0, parked: 0, sessions: 0, origins: 0, status: 0, metrics: 0, chat: 0, schedules: 0, relays: 0 });
    // old-timer keeps everything but the one relay counter it shared with old.
    expect(holdings(state, 'old-timer')).toEqual({ ...before, relays: before.relays! - 1 });
    expect(readFileSync(join(state, 'workspaces', 'old-timer', 'MEMORY.md'), 'utf8')).toBe('memory of old-timer');

    // Run again: nothing is left to prune.
    const again = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'prune', '--yes'], again)).toBe(0);
    expect(again.outText()).toBe('nothing to prune: every agent found is in the config (jerry, fran, grif, ray, old-timer)');
  });

  it('removes one agent by id; run again it finds nothing left, and after a half-done run it does the rest', async () => {
    const { dir, state } = await localState();
    expect(await runCli(['agents', 'remove', 'old', '--yes'], captureIO({ cwd: dir }))).toBe(0);
    const again = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'remove', 'old', '--yes'], again)).toBe(0);
    expect(again.outText()).toBe(
      `nothing of agent "old" is left in fleet "demo", state in ${state}: removed already (or look elsewhere: another region, account or --state)`,
    );
    expect(readdirSync(join(state, 'archive'))).toHaveLength(1);
    // Stopped half-way (only its records were left): the rest is done, the finished steps finding nothing.
    const db = openStateDatabase(join(state, 'state.db'));
    db.prepare("INSERT INTO sessions (session_key, agent_id, target, updated_at) VALUES ('agent:old:main', 'old', '{}', 1)").run();
    db.close();
    const resumed = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'remove', 'old', '--yes'], resumed)).toBe(0);
    expect(resumed.outText()).toContain(
      '  – archive: no workspace, runtime state or log\n  – schedules: none\n  ✓ records: deleted 1 sessions\nagent old removed',
    );
  });

  it('refuses while a fleet runs on the state directory, naming it, and changes nothing', async () => {
    const { dir, state } = await localState();
    locks.push(await lockStateDir(state, { pid: process.pid, startedAt: Date.now() }));
    const io = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'remove', 'old', '--yes'], io)).toBe(1);
    expect(io.errText()).toMatch(new RegExp(`the state directory .* is in use by clawfleet pid ${process.pid} .*; agents are removed from a stopped fleet`));
    expect(existsSync(join(state, 'workspaces', 'old'))).toBe(true);
  });

  it('plans with --dry-run while a fleet runs on the state directory, saying it must stop first, and changes nothing', async () => {
    const { dir, state } = await localState();
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const before = holdings(state, 'old');
    locks.push(await lockStateDir(state, { pid: process.pid, startedAt: Date.now() }));
    for (const argv of [
      ['agents', 'remove', 'old', '--dry-run'],
      ['agents', 'prune', '--dry-run'],
    ]) {
      const io = captureIO({ cwd: dir });
      expect(await runCli(argv, io), io.errText()).toBe(0);
      expect(io.outText()).toContain(`remove agent old from fleet "demo", state in ${state}:`);
      expect(io.outText()).toContain('its values in the secrets file (clawfleet/demo/agents/old) are left there');
      expect(io.outText()).toMatch(new RegExp(`! the state directory .* is in use by clawfleet pid ${process.pid} .*: stop it before removing`));
      expect(io.outText()).toMatch(/dry run: nothing was changed$/);
      expect(io.outText()).not.toContain('<fleet>');
    }
    expect(existsSync(join(state, 'workspaces', 'old'))).toBe(true);
    expect(holdings(state, 'old')).toEqual(before);
  });

  it('refuses to remove an agent still in the config (exit 2), and asks on a terminal before removing', async () => {
    const { dir, state } = await localState();
    const listed = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'remove', 'old-timer', '--yes'], listed)).toBe(2);
    expect(listed.errText()).toContain('agent "old-timer" is still in the config');
    const declined = captureIO({ cwd: dir, answers: ['no'] });
    expect(await runCli(['agents', 'remove', 'old'], declined)).toBe(1);
    expect(existsSync(join(state, 'workspaces', 'old'))).toBe(true);
    const noTerminal = captureIO({ cwd: dir });
    expect(await runCli(['agents', 'remove', 'old'], noTerminal)).toBe(2);
    expect(noTerminal.errText()).toContain('pass --yes');
  });
});
