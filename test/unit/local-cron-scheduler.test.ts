// Local mode's schedule group (SQLite) and the timer loop that fires it through λ
// cron-dispatch's core: each firing once, missed firings collapsed into one, the config's
// schedules replaced at start while agents' own stay, one-offs done after they fire.
import { describe, expect, it } from 'vitest';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteCronScheduler } from '../../shared/adapters/sqlite/sqlite-cron-scheduler.ts';
import { SqliteAgentQueues } from '../../shared/adapters/sqlite/sqlite-queues.ts';
import { SqliteSessionRegistry } from '../../shared/adapters/sqlite/sqlite-state.ts';
import { SqliteInboundOrigins } from '../../shared/adapters/sqlite/sqlite-inbound-origins.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { applyCronUpsert } from '../../shared/control/cron-requests.ts';
import { scheduleInput, type CronTrigger } from '../../shared/cron/trigger.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentQueues } from '../../shared/ports.ts';
import { startCronLoop } from '../../local/cron-loop.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const START = Date.parse('2026-03-02T10:00:00Z');

function clock(start = START) {
  let t = start;
  return { now: () => t, set: (at: number) => void (t = at), advance: (ms: number) => void (t += ms) };
}

const trigger = (jobId: string, agentId = 'fran'): CronTrigger => ({
  v: 1,
  kind: 'job',
  agentId,
  jobId,
  owner: 'config',
  sessionTarget: 'main',
  payload: { kind: 'agentTurn', message: `run ${jobId}` },
});
const schedule = (name: string, expression: string, input = scheduleInput(trigger(name))) => ({ name, expression, timezone: 'UTC', input });

describe('the SQLite schedule group', () => {
  it('puts, lists by prefix, and deletes schedules as the CronScheduler port says', async () => {
    const s = new SqliteCronScheduler(openStateDatabase(':memory:'), clock().now);
    await s.put(schedule('agent-fran-a', 'rate(5 minutes)'));
    await s.put(schedule('agent-ray-b', 'rate(5 minutes)'));
    await s.put(schedule('config-fran-c', 'cron(0 9 ? * * *)'));
    expect(await s.list('agent-fran-')).toEqual(['agent-fran-a']);
    expect(await s.list('')).toEqual(['agent-fran-a', 'agent-ray-b', 'config-fran-c']);
    expect(await s.delete('agent-fran-a')).toBe(true);
    expect(await s.delete('agent-fran-a')).toBe(false);
    expect(await s.list('agent-')).toEqual(['agent-ray-b']);
  });

  it('refuses an expression it cannot evaluate when it is put, not when it should fire', async () => {
    const s = new SqliteCronScheduler(openStateDatabase(':memory:'), clock().now);
    await expect(s.put(schedule('agent-fran-x', 'cron(0 9 L * ? *)'))).rejects.toMatchObject({ code: 'SCHEDULE_INVALID' });
    expect(await s.list('')).toEqual([]);
  });

  it('keeps a schedule’s times when it is put again unchanged, and starts over when it changes', async () => {
    const c = clock();
    const s = new SqliteCronScheduler(openStateDatabase(':memory:'), c.now);
    await s.put(schedule('config-fran-a', 'rate(10 minutes)'));
    c.advance(4 * 60_000);
    await s.put(schedule('config-fran-a', 'rate(10 minutes)'));
    expect(s.get('config-fran-a')).toMatchObject({ createdAt: START, nextAt: START + 10 * 60_000 });
    await s.put(schedule('config-fran-a', 'rate(15 minutes)'));
    expect(s.get('config-fran-a')).toMatchObject({ createdAt: START + 4 * 60_000, nextAt: START + 19 * 60_000 });
  });

  it('replaces the config’s schedules and leaves agents’ own alone', async () => {
    const s = new SqliteCronScheduler(openStateDatabase(':memory:'), clock().now);
    await s.put(schedule('config-fran-old', 'rate(1 hour)'));
    await s.put(schedule('heartbeat-ray', 'rate(30 minutes)'));
    await s.put(schedule('agent-fran-own', 'rate(1 hour)'));
    const { removed } = s.replace(['config-', 'heartbeat-'], [schedule('config-fran-new', 'rate(1 day)')]);
    expect(removed.sort()).toEqual(['config-fran-old', 'heartbeat-ray']);
    expect(await s.list('')).toEqual(['agent-fran-own', 'config-fran-new']);
  });

  it('applies an agent’s cron_upsert through the core, under the agent’s own prefix', async () => {
    const c = clock();
    const s = new SqliteCronScheduler(openStateDatabase(':memory:'), c.now);
    const outcome = await applyCronUpsert(
      {
        v: PROTOCOL_VERSION,
        kind: 'cron_upsert',
        id: 'e1',
        agentId: 'fran',
        ts: START,
        jobId: 'standup',
        schedule: { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Berlin' },
        sessionTarget: 'main',
        message: 'standup',
      },
      'fran',
      s,
      c,
    );
    expect(outcome).toEqual({ ok: true, schedule: 'agent-fran-standup' });
    // Monday 2 March 2026, 10:00 UTC is 11:00 in Berlin: the next weekday 09:00 there is Tuesday 08:00 UTC.
    expect(s.get('agent-fran-standup')).toMatchObject({
      expression: 'cron(0 9 ? * 2-6 *)',
      timezone: 'Europe/Berlin',
      nextAt: Date.parse('2026-03-03T08:00:00Z'),
    });
  });
});

function loopFixture(start = START) {
  const c = clock(start);
  const db = openStateDatabase(':memory:');
  const scheduler = new SqliteCronScheduler(db, c.now);
  const queues = new SqliteAgentQueues(db, { now: c.now });
  const sent: string[] = [];
  const recording: AgentQueues = {
    async send(envelope) {
      sent.push(envelope.id);
      await queues.send(envelope);
    },
  };
  const config = parseConfig({
    fleet: 'demo',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran' }] },
    models: { providers: { openai: { api: 'openai-completions' } } },
  });
  const log = memoryLogger();
  const dispatch = { config, queues: recording, sessions: new SqliteSessionRegistry(db), origins: new SqliteInboundOrigins(db, c.now), clock: c, log };
  return { c, db, scheduler, queues, sent, log, dispatch, loop: () => startCronLoop({ scheduler, dispatch, clock: c, log }, 3_600_000) };
}

describe('the local cron loop', () => {
  it('fires a due schedule once, with its own time naming the envelope', async () => {
    const f = loopFixture();
    await f.scheduler.put(schedule('config-fran-tick', 'rate(1 minute)'));
    const loop = f.loop();
    await loop.tick();
    expect(f.sent).toEqual([]);
    f.c.advance(60_000);
    await loop.tick();
    await loop.tick();
    const minute = Math.floor((START + 60_000) / 60_000);
    expect(f.sent).toEqual([`cron.fran.config-fran-tick.${minute}`]);
    expect(f.queues.queue('fran').depth).toBe(1);
    expect(f.scheduler.get('config-fran-tick')).toMatchObject({ lastFiredAt: START + 60_000, nextAt: START + 120_000 });
    await loop.stop();
  });

  it('fires firings missed while the fleet was down once, at start, and carries on from now', async () => {
    const f = loopFixture();
    await f.scheduler.put(schedule('config-fran-tick', 'rate(1 minute)'));
    // The fleet was down for ten minutes; a new loop (a new start) looks.
    f.c.advance(10 * 60_000 + 30_000);
    const loop = f.loop();
    await loop.tick();
    await loop.tick();
    expect(f.sent).toHaveLength(1);
    expect(f.scheduler.get('config-fran-tick')).toMatchObject({ lastFiredAt: START + 60_000, nextAt: START + 11 * 60_000 });
    expect(f.log.lines.some((l) => l.msg === 'schedule fired late: missed while the fleet was down; firing once')).toBe(true);
    f.c.advance(30_000);
    await loop.tick();
    expect(f.sent).toHaveLength(2);
    await loop.stop();
  });

  it('fires a one-off at its time, then it is gone, and putting it again does not fire it twice', async () => {
    const f = loopFixture();
    const at = schedule('config-fran-once', 'at(2026-03-02T10:05:00)');
    await f.scheduler.put(at);
    const loop = f.loop();
    f.c.set(Date.parse('2026-03-02T10:05:00Z'));
    await loop.tick();
    expect(f.sent).toHaveLength(1);
    expect(await f.scheduler.list('config-')).toEqual([]);
    // The next start puts the config's schedules again.
    f.scheduler.replace(['config-'], [at]);
    f.c.advance(60_000);
    await loop.tick();
    expect(f.sent).toHaveLength(1);
    await loop.stop();
  });

  it('queues a firing once even if the loop died between queueing and recording it', async () => {
    const f = loopFixture();
    await f.scheduler.put(schedule('config-fran-tick', 'rate(1 minute)'));
    f.c.advance(60_000);
    const { dispatchTrigger } = await import('../../shared/control/cron-dispatch.ts');
    // What the loop does before it records the firing, as if it then crashed.
    const [due] = f.scheduler.due(f.c.now());
    await dispatchTrigger(trigger('config-fran-tick'), due!.at, f.dispatch);
    const loop = f.loop();
    await loop.tick();
    expect(f.sent).toHaveLength(2);
    expect(f.queues.queue('fran').depth).toBe(1);
    await loop.stop();
  });

  it('passes over a schedule whose input is not a trigger, logging why, and fires the rest', async () => {
    const f = loopFixture();
    await f.scheduler.put(schedule('config-fran-bad', 'rate(1 minute)', '{"v":2}'));
    await f.scheduler.put(schedule('config-fran-good', 'rate(1 minute)'));
    f.c.advance(60_000);
    const loop = f.loop();
    await loop.tick();
    expect(f.sent).toEqual([`cron.fran.config-fran-good.${Math.floor((START + 60_000) / 60_000)}`]);
    expect(f.log.lines.some((l) => l.msg === 'schedule input is not a cron trigger; firing skipped' && l.schedule === 'config-fran-bad')).toBe(true);
    expect(f.scheduler.get('config-fran-bad')?.nextAt).toBe(START + 120_000);
    await loop.stop();
  });

  it('retries a firing whose dispatch failed, later, without losing it', async () => {
    const f = loopFixture();
    await f.scheduler.put(schedule('config-fran-tick', 'rate(1 hour)'));
    let failing = true;
    const send = f.dispatch.queues.send;
    f.dispatch.queues = { send: async (e) => (failing ? Promise.reject(new Error('disk full')) : send(e)) };
    f.c.advance(3_600_000);
    const loop = f.loop();
    await loop.tick();
    expect(f.sent).toEqual([]);
    expect(f.scheduler.get('config-fran-tick')?.nextAt).toBe(START + 3_600_000);
    failing = false;
    await loop.tick();
    expect(f.sent).toEqual([]); // not before the retry delay
    f.c.advance(30_000);
    await loop.tick();
    expect(f.sent).toHaveLength(1);
    await loop.stop();
  });
});
