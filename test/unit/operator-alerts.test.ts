// Operator alerts: an alarm's state change becomes one message in the operator's chat however
// often it is delivered, OK only after ALARM, at most ALERT_LIMITS of them per alarm and per
// fleet in an hour; and the local health loop's conditions make the same changes.
import { describe, expect, it } from 'vitest';
import { InMemoryAlertRates, InMemoryDeliveryLedger } from '../../shared/adapters/memory/in-memory-state.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { operatorChat } from '../../shared/config/operator-chat.ts';
import {
  ALERT_LIMITS,
  alertKeys,
  alertOperator,
  alertText,
  parseAlarmNotification,
  type AlarmStateChange,
  type OperatorAlertDeps,
} from '../../shared/control/operator-alerts.ts';
import { memoryLogger } from '../../shared/log.ts';
import { PermanentDeliveryError, type ChannelSender, type ChannelTarget } from '../../shared/ports.ts';
import { LocalAlarms, localConditions, tellOperator, type AgentSnapshot } from '../../local/operator-alarms.ts';
import { EXAMPLE_CONFIG } from '../infra/synth-fleet.ts';

const OPERATOR: ChannelTarget = { channel: 'telegram', accountId: 'jerry', chatId: '5001' };

/** CloudWatch's alarm notification, as SNS carries it (the fields AWS documents, a state change of one alarm). */
const notification = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    AlarmName: 'demo-agent-fran-inbox-dlq',
    AlarmDescription: 'Messages in demo-agent-fran-dlq.fifo: see their "reason" attribute',
    AWSAccountId: '111122223333',
    AlarmConfigurationUpdatedTimestamp: '2026-12-01T09:00:00.000+0000',
    NewStateValue: 'ALARM',
    NewStateReason: 'Threshold Crossed: 1 out of the last 1 datapoints [1.0 (03/12/26 10:10:00)] was greater than or equal to the threshold (1.0).',
    StateChangeTime: '2026-12-03T10:15:00.123+0000',
    Region: 'US East (N. Virginia)',
    AlarmArn: 'arn:aws:cloudwatch:us-east-1:111122223333:alarm:demo-agent-fran-inbox-dlq',
    OldStateValue: 'OK',
    Trigger: { MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS', Statistic: 'MAXIMUM', Period: 300, Threshold: 1.0 },
    ...over,
  });

function harness(opts: { target?: ChannelTarget | undefined; send?: (text: string) => Promise<void> } = {}) {
  let now = Date.parse('2026-12-03T10:16:00Z');
  const sent: string[] = [];
  const channel: ChannelSender = {
    maxTextLength: 4096,
    sendText: async (_target, text) => {
      await opts.send?.(text);
      sent.push(text);
    },
    sendTyping: async () => {},
  };
  const log = memoryLogger();
  const deps: OperatorAlertDeps = {
    target: 'target' in opts ? opts.target : OPERATOR,
    channel: async () => channel,
    ledger: new InMemoryDeliveryLedger(),
    rates: new InMemoryAlertRates(),
    clock: { now: () => now },
    log,
  };
  return { deps, sent, log, advance: (ms: number) => (now += ms) };
}

const change = (over: Partial<AlarmStateChange> = {}): AlarmStateChange => ({
  alarm: 'demo-agent-fran-inbox-dlq',
  state: 'ALARM',
  previous: 'OK',
  reason: 'Threshold Crossed',
  at: Date.parse('2026-12-03T10:15:00Z'),
  ...over,
});

describe('an alarm notification', () => {
  it('is read from CloudWatch’s message: name, states, reason, description and the time of the change', () => {
    const parsed = parseAlarmNotification(notification());
    expect(parsed).toEqual({
      ok: true,
      change: {
        alarm: 'demo-agent-fran-inbox-dlq',
        state: 'ALARM',
        previous: 'OK',
        reason: expect.stringMatching(/^Threshold Crossed: 1 out of the last 1 datapoints/),
        description: 'Messages in demo-agent-fran-dlq.fifo: see their "reason" attribute',
        at: Date.parse('2026-12-03T10:15:00.123Z'),
      },
    });
  });

  it('that is not one is refused with why, quoting nothing long of it', () => {
    expect(parseAlarmNotification('not json')).toEqual({ ok: false, reason: 'the message is not JSON' });
    expect(parseAlarmNotification(JSON.stringify({ hello: 'world' }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not a CloudWatch alarm notification: AlarmName/),
    });
    expect(parseAlarmNotification(notification({ StateChangeTime: 'x'.repeat(500) }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is not a time$/),
    });
    expect(parseAlarmNotification(notification({ NewStateValue: 'ON_FIRE' })).ok).toBe(false);
  });
});

describe('alerting the operator', () => {
  it('sends one state change once, however often it is delivered (SNS redelivers, Lambda retries)', async () => {
    const { deps, sent } = harness();
    const parsed = parseAlarmNotification(notification());
    if (!parsed.ok) throw new Error(parsed.reason);
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await alertOperator({ kind: 'alarm', change: parsed.change }, deps));
    expect(outcomes).toEqual(['sent', 'duplicate', 'duplicate']);
    expect(sent).toEqual([
      '🔴 demo-agent-fran-inbox-dlq\nMessages in demo-agent-fran-dlq.fifo: see their "reason" attribute\n' +
        'Threshold Crossed: 1 out of the last 1 datapoints [1.0 (03/12/26 10:10:00)] was greater than or equal to the threshold (1.0). (2026-12-03 10:15 UTC)',
    ]);
    // A later change of the same alarm is another message.
    expect(await alertOperator({ kind: 'alarm', change: change({ state: 'OK', previous: 'ALARM', at: change().at + 600_000 }) }, deps)).toBe('sent');
    expect(sent[1]).toMatch(/^✅ Resolved: demo-agent-fran-inbox-dlq\n/);
  });

  it('hands a delivery that meets another in flight back for a retry, which then finds it sent', async () => {
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    const { deps, sent } = harness({ send: () => held });
    const first = alertOperator({ kind: 'alarm', change: change() }, deps);
    // The second delivery arrives while the first is sending: refused for now (Lambda retries it), nothing sent.
    await expect(alertOperator({ kind: 'alarm', change: change() }, deps)).rejects.toThrow(/is being sent by another worker; retry later/);
    letGo();
    expect(await first).toBe('sent');
    // Lambda's retry (a minute later on AWS) finds it sent.
    expect(await alertOperator({ kind: 'alarm', change: change() }, deps)).toBe('duplicate');
    expect(sent).toHaveLength(1);
  });

  it('tells an alarm going off and one coming back, never a first evaluation or an OK after no data', async () => {
    const { deps, sent } = harness();
    expect(await alertOperator({ kind: 'alarm', change: change({ state: 'OK', previous: 'INSUFFICIENT_DATA' }) }, deps)).toBe('not-announced');
    expect(await alertOperator({ kind: 'alarm', change: change({ state: 'INSUFFICIENT_DATA', previous: 'OK' }) }, deps)).toBe('not-announced');
    expect(await alertOperator({ kind: 'alarm', change: change({ state: 'ALARM', previous: 'INSUFFICIENT_DATA' }) }, deps)).toBe('sent');
    expect(sent).toHaveLength(1);
  });

  it('sends at most 3 changes of one alarm an hour, the third saying so, and again in the next hour', async () => {
    const { deps, sent, advance, log } = harness();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await alertOperator({ kind: 'alarm', change: change({ at: change().at + i * 1000 }) }, deps));
    expect(outcomes).toEqual(['sent', 'sent', 'sent', 'rate-limited', 'rate-limited']);
    expect(sent[2]).toMatch(/\(This alarm’s limit is reached: its changes before 2026-12-03 11:00 UTC are not sent\.\)$/);
    expect(log.lines.filter((l) => l.msg === 'operator alert not sent: rate limit')).toHaveLength(2);
    // Given up on for good: its redelivery is a duplicate, not another count.
    expect(await alertOperator({ kind: 'alarm', change: change({ at: change().at + 3000 }) }, deps)).toBe('duplicate');
    advance(ALERT_LIMITS.windowMs);
    expect(await alertOperator({ kind: 'alarm', change: change({ at: change().at + 10_000 }) }, deps)).toBe('sent');
  });

  it('sends at most 30 alerts an hour for the whole fleet, the thirtieth saying so', async () => {
    const { deps, sent } = harness();
    const outcomes = [];
    for (let i = 0; i < ALERT_LIMITS.fleet + 2; i++)
      outcomes.push(await alertOperator({ kind: 'alarm', change: change({ alarm: `demo-agent-a${i}-restarts` }) }, deps));
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(ALERT_LIMITS.fleet);
    expect(outcomes.slice(-2)).toEqual(['rate-limited', 'rate-limited']);
    expect(sent.at(-1)).toMatch(/The fleet’s alert limit is reached: no more alerts before 2026-12-03 11:00 UTC/);
  });

  it('hands a send that failed for now back for a retry, which sends it once; one refused for good is not retried', async () => {
    let down = true;
    const { deps, sent } = harness({
      send: async () => {
        if (down) throw new Error('ECONNRESET');
      },
    });
    await expect(alertOperator({ kind: 'alarm', change: change() }, deps)).rejects.toThrow(/ECONNRESET/);
    down = false;
    expect(await alertOperator({ kind: 'alarm', change: change() }, deps)).toBe('sent');
    expect(await alertOperator({ kind: 'alarm', change: change() }, deps)).toBe('duplicate');
    expect(sent).toHaveLength(1);

    const refused = harness({
      send: async () => {
        throw new PermanentDeliveryError('Forbidden: bot was blocked by the user');
      },
    });
    expect(await alertOperator({ kind: 'alarm', change: change() }, refused.deps)).toBe('refused');
    expect(await alertOperator({ kind: 'alarm', change: change() }, refused.deps)).toBe('duplicate');
  });

  it('logs, and sends nothing, where the config names no operator chat', async () => {
    const { deps, sent, log } = harness({ target: undefined });
    expect(await alertOperator({ kind: 'alarm', change: change() }, deps)).toBe('no-operator-chat');
    expect(sent).toEqual([]);
    expect(log.lines.find((l) => l.msg === 'operator alert not sent: the config names no operator chat (operator.telegram)')).toBeDefined();
  });

  it('takes spend over budget (#31) as one alert per scope and period', async () => {
    const spend = {
      kind: 'spend' as const,
      spend: { scope: 'fran', spentUsd: 12.5, budgetUsd: 10, period: '2026-12', at: Date.parse('2026-12-03T10:15:00Z') },
    };
    expect(alertKeys(spend)).toEqual({ idempotency: 'alert:spend:fran:2026-12', rate: 'spend:fran' });
    expect(alertText(spend)).toBe('💸 Over budget: fran\n$12.50 spent of $10.00 for 2026-12 (2026-12-03 10:15 UTC)');
    const { deps, sent } = harness();
    expect([await alertOperator(spend, deps), await alertOperator(spend, deps)]).toEqual(['sent', 'duplicate']);
    expect(sent).toHaveLength(1);
  });

  it('takes a share of a budget reached (#31: 80 %, 100 %) as an alert of its own, worded as what it is', async () => {
    const at = Date.parse('2026-12-03T10:15:00Z');
    const share = (percent: number) => ({
      kind: 'spend' as const,
      spend: { scope: "fran's daily budget", spentUsd: percent / 100, budgetUsd: 1, period: '2026-12-03', percent, at },
    });
    expect(alertKeys(share(80))).toEqual({ idempotency: "alert:spend:fran's daily budget:2026-12-03:80", rate: "spend:fran's daily budget" });
    expect(alertKeys(share(100)).idempotency).toBe("alert:spend:fran's daily budget:2026-12-03:100");
    expect(alertText(share(80))).toBe("💸 80 % of the budget spent: fran's daily budget\n$0.80 spent of $1.00 for 2026-12-03 (2026-12-03 10:15 UTC)");
    expect(alertText(share(100)).split('\n')[0]).toBe("💸 Over budget: fran's daily budget");
  });
});

describe('the operator’s chat', () => {
  it('is operator.telegram’s, written by the bot it names or the fleet’s only one', () => {
    expect(operatorChat(parseConfig({ ...EXAMPLE_CONFIG, operator: { telegram: { accountId: 'jerry', chatId: 5001 } } }))).toEqual(OPERATOR);
    expect(operatorChat(parseConfig(EXAMPLE_CONFIG))).toBeUndefined();
    const unnamed = /operator.telegram.accountId: must name the bot that writes alerts, one of channels.telegram.accounts: jerry, fran, grif, ray/;
    expect(() => parseConfig({ ...EXAMPLE_CONFIG, operator: { telegram: { chatId: 5001 } } })).toThrow(unnamed);
    expect(() => parseConfig({ ...EXAMPLE_CONFIG, operator: { telegram: { accountId: 'nobody', chatId: 5001 } } })).toThrow(unnamed);
    expect(() => parseConfig({ ...EXAMPLE_CONFIG, channels: {}, bindings: [], operator: { telegram: { chatId: 5001 } } })).toThrow(
      /channels.telegram.accounts: none/,
    );
    expect(() => parseConfig({ ...EXAMPLE_CONFIG, operator: { email: 'not an address' } })).toThrow(/operator.email: must be an email address/);
  });
});

describe('the local alarms', () => {
  const config = parseConfig(EXAMPLE_CONFIG);
  const fran = (over: Partial<AgentSnapshot> = {}): AgentSnapshot => ({
    id: 'fran',
    restarts: 0,
    state: 'running',
    startedAt: 0,
    inboxDlq: 0,
    outboxDlq: 0,
    warnings: [],
    ...over,
  });
  const breaching = (agent: AgentSnapshot, failure?: string, now = 120_000) =>
    localConditions(config, [agent], failure, now)
      .filter((c) => c.breaching)
      .map((c) => c.alarm);

  it('go off for a crash loop, dead letters, a wait for a secret and a failing health tick, named as on AWS', () => {
    expect(breaching(fran())).toEqual([]);
    expect(breaching(fran({ restarts: 3, state: 'restarting' }))).toEqual(['demo-agent-fran-restarts']);
    // Three restarts, but running a minute since: over.
    expect(breaching(fran({ restarts: 3, state: 'running', startedAt: 0 }), undefined, 60_000)).toEqual([]);
    expect(breaching(fran({ inboxDlq: 1, outboxDlq: 2 }))).toEqual(['demo-agent-fran-inbox-dlq', 'demo-agent-fran-outbox-dlq']);
    expect(breaching(fran({ warnings: ['exec is off', 'waiting for secret "clawfleet/demo/agents/fran": it lacks OPENAI_API_KEY'] }))).toEqual([
      'demo-agent-fran-secret',
    ]);
    expect(breaching(fran(), 'registry unreadable')).toEqual(['demo-health']);
  });

  it('change state once per change, and a change whose telling failed is told on the next tick with its own time', async () => {
    const alarms = new LocalAlarms();
    const conds = (dlq: number) => localConditions(config, [fran({ inboxDlq: dlq })], undefined, 0);
    // A first look: every condition from INSUFFICIENT_DATA (OK ones are not told).
    expect(alarms.changes(conds(0), 1).every((c) => c.state === 'OK' && c.previous === 'INSUFFICIENT_DATA')).toBe(true);
    expect(alarms.changes(conds(0), 2)).toEqual([]);
    let down = true;
    const { deps, sent } = harness({
      send: async () => {
        if (down) throw new Error('ETIMEDOUT');
      },
    });
    await tellOperator(alarms, conds(1), 3, deps);
    expect(sent).toEqual([]);
    down = false;
    await tellOperator(alarms, conds(1), 4, deps);
    await tellOperator(alarms, conds(1), 5, deps);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^🔴 demo-agent-fran-inbox-dlq\n/);
    await tellOperator(alarms, conds(0), 6, deps);
    expect(sent[1]).toMatch(/^✅ Resolved: demo-agent-fran-inbox-dlq\n/);
  });
});
