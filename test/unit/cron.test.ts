import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryCronScheduler } from '../../shared/adapters/memory/in-memory-cron-scheduler.ts';
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemoryInboundOrigins, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { configSchedules } from '../../shared/cron/config-schedules.ts';
import { toScheduleExpression } from '../../shared/cron/expression.ts';
import { CronTriggerSchema } from '../../shared/cron/trigger.ts';
import { dispatchTrigger, withinHours } from '../../shared/control/cron-dispatch.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { memoryLogger } from '../../shared/log.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const NOW = Date.parse('2026-11-29T10:00:00Z');

function config(extra: Record<string, unknown> = {}) {
  return parseConfig({
    fleet: 'demo',
    agents: {
      defaults: { model: 'm/x', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'jerry', heartbeat: { every: '30m', activeHours: { start: '08:00', end: '22:00', timezone: 'Europe/Berlin' } } }, { id: 'fran' }],
    },
    models: { providers: { m: { api: 'openai-completions' } } },
    channels: { telegram: { accounts: { jerry: { botTokenSecret: 'J' } } } },
    cron: {
      jobs: [
        {
          id: 'morning',
          agentId: 'jerry',
          schedule: { kind: 'cron', expr: '0 7 * * 1-5', tz: 'Europe/Berlin' },
          sessionTarget: 'isolated',
          payload: { kind: 'agentTurn', message: 'Brief me' },
          delivery: { mode: 'announce', to: '4242' },
        },
        { id: 'tidy', agentId: 'fran', schedule: { kind: 'every', every: '2h' }, payload: { kind: 'systemEvent', text: 'tidy up' } },
      ],
    },
    ...extra,
  });
}

describe('schedule expressions', () => {
  it('converts OpenClaw schedules to EventBridge Scheduler expressions', () => {
    expect(toScheduleExpression({ kind: 'cron', expr: '0 7 * * 1-5', tz: 'Europe/Berlin' })).toEqual({
      expression: 'cron(0 7 ? * 2-6 *)',
      timezone: 'Europe/Berlin',
      minIntervalMs: 24 * 3600_000,
    });
    expect(toScheduleExpression({ kind: 'cron', expr: '*/15 * 1 * *' }).expression).toBe('cron(*/15 * 1 * ? *)');
    // Days are renumbered (Sunday 0 → 1), a step's count is not.
    expect(toScheduleExpression({ kind: 'cron', expr: '0 9 * * 1-5/2,0' }).expression).toBe('cron(0 9 ? * 2-6/2,1 *)');
    expect(toScheduleExpression({ kind: 'cron', expr: '0 9 * * */2' }).expression).toBe('cron(0 9 ? * */2 *)');
    expect(toScheduleExpression({ kind: 'every', everyMs: 2 * 3600_000 }).expression).toBe('rate(2 hours)');
    expect(toScheduleExpression({ kind: 'every', everyMs: 60_000 }).expression).toBe('rate(1 minute)');
    expect(toScheduleExpression({ kind: 'at', at: '2026-12-01T09:30:00+01:00' })).toMatchObject({ expression: 'at(2026-12-01T08:30:00)', timezone: 'UTC' });
  });

  it('says what it cannot express', () => {
    expect(() => toScheduleExpression({ kind: 'cron', expr: '0 7 1 * 1' })).toThrow(/both day-of-month and day-of-week/);
    expect(() => toScheduleExpression({ kind: 'cron', expr: '0 7 * *' })).toThrow(/five fields/);
    expect(() => toScheduleExpression({ kind: 'every', everyMs: 30_000 })).toThrow(/whole minutes/);
  });

  it('makes one schedule per config job and per heartbeat, each with a valid trigger', () => {
    const specs = configSchedules(config());
    expect(specs.map((s) => [s.name, s.expression])).toEqual([
      ['config-jerry-morning', 'cron(0 7 ? * 2-6 *)'],
      ['config-fran-tidy', 'rate(2 hours)'],
      ['heartbeat-jerry', 'rate(30 minutes)'],
    ]);
    for (const s of specs) expect(CronTriggerSchema.safeParse(s.trigger).success).toBe(true);
  });
});

describe('cron dispatch', () => {
  function deps(c = config()) {
    const queues = new InMemoryAgentQueues();
    const registry = new InMemoryAgentRegistry();
    const compute = new InMemoryAgentCompute();
    const log = memoryLogger();
    const clock = { now: () => NOW };
    return {
      config: c,
      queues,
      sessions: new InMemorySessionRegistry(),
      origins: new InMemoryInboundOrigins(clock.now),
      lifecycle: { registry, compute, depths: new InMemoryQueueDepths(), clock, log },
      clock,
      log,
    };
  }
  const [morning, tidy, heartbeat] = configSchedules(config()).map((s) => s.trigger);

  it('queues an isolated job once per firing, answers into its delivery chat, and wakes the agent', async () => {
    const d = deps();
    expect(await dispatchTrigger(morning!, NOW, d)).toEqual({ queued: `cron.jerry.morning.${NOW / 60_000}` });
    await dispatchTrigger(morning!, NOW, d);
    const queued = d.queues
      .queue('jerry')
      .bodies()
      .map((b) => JSON.parse(b));
    expect(queued).toEqual([
      expect.objectContaining({
        kind: 'cron',
        sessionKey: 'agent:jerry:cron:morning',
        sessionTarget: 'isolated',
        payload: { kind: 'agentTurn', message: 'Brief me' },
      }),
    ]);
    expect((await d.sessions.get('agent:jerry:cron:morning'))?.target).toEqual({ channel: 'telegram', accountId: 'jerry', chatId: '4242' });
    expect(await d.origins.get(queued[0].id)).toMatchObject({
      agentId: 'jerry',
      sessionKey: 'agent:jerry:cron:morning',
      target: { channel: 'telegram', accountId: 'jerry', chatId: '4242' },
    });
    expect(d.lifecycle.compute.calls).toEqual([{ agentId: 'jerry', action: 'start' }]);
  });

  it('runs a main-session job in the main session without taking over its chat', async () => {
    const d = deps();
    await d.sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: { channel: 'telegram', accountId: 'jerry', chatId: '9' }, updatedAt: 1 });
    const { queued } = (await dispatchTrigger(tidy!, NOW, d)) as { queued: string };
    expect(JSON.parse(d.queues.queue('fran').bodies()[0]!)).toMatchObject({ sessionKey: 'agent:fran:main', payload: { kind: 'systemEvent', text: 'tidy up' } });
    expect((await d.sessions.get('agent:fran:main'))?.target).toMatchObject({ chatId: '9' });
    // Its answer goes to the session's last direct route as it was when the job fired.
    expect((await d.origins.get(queued))?.target).toEqual({ channel: 'telegram', accountId: 'jerry', chatId: '9' });
  });

  it('answers a job with delivery "none" nowhere, and one that names a chat there, wherever the session last heard from', async () => {
    const c = config();
    c.cron!.jobs[1]!.delivery = { mode: 'none' };
    const silent = configSchedules(c)[1]!.trigger;
    c.cron!.jobs[1]!.delivery = { mode: 'announce', to: '777' };
    const announced = configSchedules(c)[1]!.trigger;
    const d = deps(c);
    await d.sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: { channel: 'telegram', accountId: 'jerry', chatId: '9' }, updatedAt: 1 });
    const first = (await dispatchTrigger(silent, NOW, d)) as { queued: string };
    const second = (await dispatchTrigger(announced, NOW + 60_000, d)) as { queued: string };
    expect((await d.origins.get(first.queued))?.target).toEqual({ channel: 'none' });
    expect((await d.origins.get(second.queued))?.target).toEqual({ channel: 'telegram', accountId: 'jerry', chatId: '777' });
  });

  it('runs a job an operator fires now under its own id: beside the schedule’s firing of that minute, and again', async () => {
    const d = deps();
    await dispatchTrigger(morning!, NOW, d);
    expect(await dispatchTrigger(morning!, NOW, d, { id: 'run-1' })).toEqual({ queued: 'cron.jerry.morning.manual.run-1' });
    expect(await dispatchTrigger(morning!, NOW, d, { id: 'run-2' })).toEqual({ queued: 'cron.jerry.morning.manual.run-2' });
    expect(
      d.queues
        .queue('jerry')
        .bodies()
        .map((b) => JSON.parse(b).id),
    ).toEqual([`cron.jerry.morning.${NOW / 60_000}`, 'cron.jerry.morning.manual.run-1', 'cron.jerry.morning.manual.run-2']);
    // Recorded and woken as a firing is: its answer reaches the job's chat.
    expect(await d.origins.get('cron.jerry.morning.manual.run-2')).toMatchObject({
      sessionKey: 'agent:jerry:cron:morning',
      target: { channel: 'telegram', accountId: 'jerry', chatId: '4242' },
    });
    expect(d.log.lines.filter((l) => l.msg === 'cron job run by the operator').map((l) => l.envelopeId)).toEqual([
      'cron.jerry.morning.manual.run-1',
      'cron.jerry.morning.manual.run-2',
    ]);
  });

  it('sends a heartbeat inside active hours only, in the agent’s timezone', async () => {
    const d = deps();
    expect(await dispatchTrigger(heartbeat!, Date.parse('2026-11-29T06:30:00Z'), d)).toEqual({ skipped: 'outside active hours' }); // 07:30 in Berlin
    expect(await dispatchTrigger(heartbeat!, NOW, d)).toMatchObject({ queued: expect.stringMatching(/^hb\.jerry\./) }); // 11:00 in Berlin
    expect(JSON.parse(d.queues.queue('jerry').bodies()[0]!)).toMatchObject({
      kind: 'system_event',
      sessionKey: 'agent:jerry:main',
      text: expect.stringContaining('HEARTBEAT_OK'),
    });
    // A session nobody has written to yet: the heartbeat's answer has nobody to reach.
    expect((await d.origins.get(JSON.parse(d.queues.queue('jerry').bodies()[0]!).id))?.target).toEqual({ channel: 'none' });
    expect(withinHours(Date.parse('2026-11-29T23:30:00Z'), { start: '22:00', end: '06:00' })).toBe(true);
  });
});

describe('an agent managing its own cron jobs', () => {
  function setup() {
    const scheduler = new InMemoryCronScheduler();
    const dlq = new InMemoryDeadLetters();
    const deps = {
      config: config(),
      origins: new InMemoryInboundOrigins(),
      sessions: new InMemorySessionRegistry(),
      ledger: new InMemoryDeliveryLedger(),
      deadLetters: () => dlq,
      channel: async () => {
        throw new Error('unused');
      },
      scheduler,
      clock: { now: () => NOW },
      log: memoryLogger(),
    };
    const request = (from: string, body: Record<string, unknown>) =>
      processOutboxRecord(
        { source: `demo-outbox-${from}.fifo`, body: JSON.stringify({ v: PROTOCOL_VERSION, agentId: from, ts: 1, ...body }), messageId: 'm' },
        deps,
      );
    return { scheduler, dlq, request };
  }
  const upsert = (id: string, jobId: string, schedule: unknown) => ({
    kind: 'cron_upsert',
    id,
    jobId,
    schedule,
    sessionTarget: 'main',
    message: 'check the mail',
  });

  it('schedules a job under the agent’s own name, and removes it', async () => {
    const { scheduler, request } = setup();
    await request('fran', upsert('u1', 'mail', { kind: 'every', everyMs: 3600_000 }));
    expect([...scheduler.schedules.values()]).toEqual([expect.objectContaining({ name: 'agent-fran-mail', expression: 'rate(1 hour)' })]);
    expect(JSON.parse(scheduler.schedules.get('agent-fran-mail')!.input)).toMatchObject({
      kind: 'job',
      agentId: 'fran',
      owner: 'agent',
      scheduledTime: '<aws.scheduler.scheduled-time>',
    });
    await request('fran', { kind: 'cron_delete', id: 'd1', jobId: 'mail' });
    expect(scheduler.schedules.size).toBe(0);
  });

  it('cannot remove another agent’s job or a config job', async () => {
    const { scheduler, dlq, request } = setup();
    await request('fran', upsert('u2', 'mail', { kind: 'every', everyMs: 3600_000 }));
    await request('jerry', { kind: 'cron_delete', id: 'd2', jobId: 'mail' });
    expect(scheduler.schedules.has('agent-fran-mail')).toBe(true);
    expect(dlq.letters[0]?.reason).toMatch(/^CRON_UNKNOWN/);
  });

  it('refuses jobs that run too often, lie in the past, or exceed the count limit', async () => {
    const { scheduler, dlq, request } = setup();
    await request('fran', upsert('u3', 'spam', { kind: 'cron', expr: '* * * * *' }));
    await request('fran', upsert('u4', 'past', { kind: 'at', at: '2020-01-01T00:00:00Z' }));
    for (let i = 0; i < 21; i++) await request('fran', upsert(`u5-${i}`, `job${i}`, { kind: 'every', everyMs: 3600_000 }));
    expect(dlq.letters.map((l) => l.reason.split(':')[0])).toEqual(['CRON_TOO_FREQUENT', 'CRON_INVALID', 'CRON_LIMIT']);
    expect(scheduler.schedules.size).toBe(20);
  });
});
