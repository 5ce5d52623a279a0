// The control plane's side of a budget (#31), through the real cores over local mode's SQLite
// adapters and the fake Bot API: work for an agent over its cap is not queued — a person is
// answered with the cap, its reset and how to raise it (once, however often Telegram retries),
// a hook caller gets a 429 saying the same, cron jobs and heartbeats are skipped (paused, not
// dead-lettered), a question from another agent is answered for it — and /status shows the
// spend. Usage reports are counted once, priced by the config, and the operator's alarms at 80 %
// and 100 % of a cap are told once per period each. And the config refuses a budget it cannot keep.
import { afterEach, describe, expect, it } from 'vitest';
import { alarmKey, type SpendAlarm } from '../../shared/budget/budget.ts';
import { callCostMicros, DEFAULT_MODEL_PRICES } from '../../shared/budget/prices.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ConfigError } from '../../shared/errors.ts';
import { BOT_TOKENS, HOOKS_TOKEN, startAuthorityPlane, type AuthorityPlane } from '../support/authority-plane.ts';

const FRAN_BUDGETED = {
  agents: {
    defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25 as const, memoryMb: 512 } },
    list: [{ id: 'fran', default: true, name: 'Fran', budget: { dailyUsd: 1, monthlyUsd: 20 } }, { id: 'grif' }],
  },
  agentToAgent: { allow: [{ from: 'grif', to: 'fran' }], maxHops: 3 },
  cron: {
    jobs: [{ id: 'digest', agentId: 'fran', schedule: { kind: 'every' as const, every: '1h' }, payload: { kind: 'agentTurn' as const, message: 'digest' } }],
  },
};

let plane: AuthorityPlane | undefined;
afterEach(async () => {
  await plane?.close();
  plane = undefined;
});

async function start(alerts: SpendAlarm[] = []) {
  plane = await startAuthorityPlane(FRAN_BUDGETED as never, { spendAlerts: async (_agent, alarm) => void alerts.push(alarm) });
  return plane;
}
/** Fran has spent `micros` today, as her runtime's reports were counted. */
const spent = (p: AuthorityPlane, micros: number, id = 'seed') => p.cp.spend.add('fran', id, micros, p.clock.now());
const queuedFor = (p: AuthorityPlane, agentId: string) => p.cp.inbox(agentId).depth;

describe('admission while an agent is over its budget', () => {
  it('answers a Telegram message with the cap, its reset and how to raise it, queues nothing, and answers a retry of it no more', async () => {
    const p = await start();
    await spent(p, 1_000_000);
    const res = await p.write('fran', 4242, 'are you there?');
    expect(res).toEqual({ status: 200, body: { ok: true, overBudget: 'day' } });
    expect(queuedFor(p, 'fran')).toBe(0);
    const [note] = p.sent();
    expect(note!.chatId).toBe('4242');
    expect(note!.text).toContain('Fran has reached its daily budget: $1.00 spent of $1.00 today (UTC), so this message was not answered.');
    expect(note!.text).toContain('It answers again from 00:00 UTC (in 14 h)');
    expect(note!.text).toContain('budget.dailyUsd of agent "fran" in clawfleet.json');
    // Telegram retries an update it did not see acknowledged: the same update is not told twice.
    const update = JSON.stringify({
      update_id: 99,
      message: { message_id: 5, date: 1, chat: { id: 4242, type: 'private' }, from: { id: 4242, is_bot: false, first_name: 'Ann' }, text: 'hi' },
    });
    const { webhookSecretFor } = await import('../../shared/telegram/webhook-secret.ts');
    await p.cp.telegramUpdate('fran', webhookSecretFor(BOT_TOKENS.fran), update);
    await p.cp.telegramUpdate('fran', webhookSecretFor(BOT_TOKENS.fran), update);
    expect(p.sent()).toHaveLength(2);
  });

  it('still takes the commands that ask no model, and /status says the spend and the pause', async () => {
    const p = await start();
    await spent(p, 1_000_000);
    await p.write('fran', 4242, '/new');
    expect(queuedFor(p, 'fran')).toBe(1);
    await p.write('fran', 4242, '/status');
    const status = p.sent().at(-1)!.text;
    expect(status).toContain(
      'Spend: $1.00 of $1.00 today · $1.00 of $20.00 this month (UTC) — daily budget reached: messages are not answered and cron jobs and heartbeats are paused until 00:00 UTC (in 14 h)',
    );
  });

  it('queues as before under the cap, and /status shows what is spent; an agent without a budget is never looked up', async () => {
    const p = await start();
    await spent(p, 420_000);
    await p.write('fran', 4242, 'hello');
    expect(queuedFor(p, 'fran')).toBe(1);
    await p.write('fran', 4242, '/status');
    expect(p.sent().at(-1)!.text).toMatch(/^Spend: \$0\.42 of \$1\.00 today · \$0\.42 of \$20\.00 this month \(UTC\)$/m);
    await p.write('grif', 4243, '/status');
    expect(p.sent().at(-1)!.text).not.toContain('Spend');
  });

  it('refuses a hook with 429 and the same words, queuing nothing', async () => {
    const p = await start();
    await spent(p, 1_000_000);
    const res = await p.cp.hook({
      method: 'POST',
      path: '/hooks/agent',
      headers: { authorization: `Bearer ${HOOKS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'build finished', agentId: 'fran' }),
    });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      error: expect.stringContaining('Fran has reached its daily budget'),
      overBudget: 'day',
      resetsAt: '2026-12-02T00:00:00.000Z',
    });
    expect(queuedFor(p, 'fran')).toBe(0);
  });

  it('pauses cron jobs and heartbeats — skipped with the reason, not dead-lettered — and runs them again once the day resets', async () => {
    const heartbeat = { v: 1 as const, kind: 'heartbeat' as const, agentId: 'fran' };
    const p = await start();
    await spent(p, 1_000_000);
    const job = {
      v: 1 as const,
      kind: 'job' as const,
      owner: 'config' as const,
      agentId: 'fran',
      jobId: 'digest',
      sessionTarget: 'main' as const,
      payload: { kind: 'agentTurn' as const, message: 'digest' },
    };
    expect(await p.cp.runTrigger(job)).toEqual({ skipped: 'over its daily budget ($1.00 of $1.00) until 2026-12-02T00:00:00.000Z' });
    expect(await p.cp.runTrigger(heartbeat)).toEqual({ skipped: 'over its daily budget ($1.00 of $1.00) until 2026-12-02T00:00:00.000Z' });
    expect(queuedFor(p, 'fran')).toBe(0);
    expect(p.log.lines.some((l) => String(l.msg).startsWith('heartbeat skipped: the agent is over its daily budget'))).toBe(true);
    expect(p.log.lines.some((l) => String(l.msg).startsWith('cron job skipped: the agent is over its daily budget') && l.agentId === 'fran')).toBe(true);
    p.clock.advance(14 * 3600_000);
    expect(await p.cp.runTrigger(job)).toMatchObject({ queued: expect.stringMatching(/^cron\.fran\.digest\./) });
  });

  it('answers another agent’s question for an agent over its cap, and queues nothing for it', async () => {
    const p = await start();
    await spent(p, 1_000_000);
    // Grif's turn (its inbound is Bo's message) asks fran something.
    await p.write('grif', 4243, 'ask fran');
    const grif = p.runtime('grif', { label: 'x', contextWindow: 1, complete: async () => ({ ok: false, error: 'unused', retriable: false }) });
    const taken = await grif.take();
    await grif.forge({
      kind: 'agent_send',
      id: `${taken!.envelope.id}.req.1`,
      sessionKey: 'agent:grif:main',
      toAgentId: 'fran',
      text: 'what is on today?',
      inboundId: taken!.envelope.id,
    });
    expect(queuedFor(p, 'fran')).toBe(0);
    // The answer waits in grif's session behind the turn that asked (its FIFO group): that turn ends first.
    await p.cp.inbox('grif').delete(taken!.receipt);
    const answer = await grif.take();
    expect(answer!.envelope).toMatchObject({
      kind: 'agent_message',
      agentId: 'grif',
      fromAgentId: 'fran',
      sessionKey: 'agent:grif:main',
      inReplyTo: `am.grif.${taken!.envelope.id}.req.1`,
      text: expect.stringContaining('Fran has reached its daily budget'),
    });
    expect(p.refused('grif')).toEqual([]);
  });

  it('shows the chat box’s line and the note, and queues nothing', async () => {
    const p = await start();
    await spent(p, 1_000_000);
    await p.cp.chatMessage('fran', 'hi from the dashboard');
    expect(queuedFor(p, 'fran')).toBe(0);
    const lines = p.cp.chat.since('fran', 0).messages.map((m) => [m.role, m.text.slice(0, 40)]);
    expect(lines).toEqual([
      ['user', 'hi from the dashboard'],
      ['agent', '⛔ Fran has reached its daily budget: $1.'],
    ]);
  });
});

describe('counting usage reports', () => {
  const usage = (id: string, tokens: { input: number; output: number }, model = 'openai/gpt-4.1-mini') => ({
    kind: 'usage',
    id,
    sessionKey: 'agent:fran:main',
    inboundId: 'tg.fran.1',
    model,
    tokens: { ...tokens, cacheRead: 0, cacheWrite: 0 },
  });

  it('prices each report with the config’s prices and counts it once, however often it is delivered', async () => {
    const p = await start();
    const fran = p.runtime('fran', { label: 'x', contextWindow: 1, complete: async () => ({ ok: false, error: 'unused', retriable: false }) });
    await fran.forge(usage('tg.fran.1.usage.a.1', { input: 100_000, output: 10_000 }));
    await fran.forge(usage('tg.fran.1.usage.a.1', { input: 100_000, output: 10_000 }));
    const cost = callCostMicros({ input: 100_000, output: 10_000, cacheRead: 0, cacheWrite: 0 }, DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini']!);
    expect(cost).toBe(56_000);
    expect(await p.cp.spend.totals('fran', p.clock.now())).toMatchObject({ dayMicros: cost, monthMicros: cost });
  });

  it('refuses a report of a model the agent has no price for, into its outbox DLQ, counting nothing', async () => {
    const p = await start();
    const fran = p.runtime('fran', { label: 'x', contextWindow: 1, complete: async () => ({ ok: false, error: 'unused', retriable: false }) });
    await fran.forge(usage('tg.fran.1.usage.a.9', { input: 1, output: 1 }, 'openai/gpt-free'));
    expect(p.refused('fran')).toEqual([expect.stringMatching(/^USAGE_MODEL_UNKNOWN: "openai\/gpt-free" is not one of the priced models of agent "fran"/)]);
    expect((await p.cp.spend.totals('fran', p.clock.now())).monthMicros).toBe(0);
  });

  it('tells the operator in their own chat through the operator channel, once per alarm however often a report is delivered', async () => {
    plane = await startAuthorityPlane({ ...FRAN_BUDGETED, operator: { telegram: { accountId: 'fran', chatId: 9001 } } } as never);
    const p = plane;
    const fran = p.runtime('fran', { label: 'x', contextWindow: 1, complete: async () => ({ ok: false, error: 'unused', retriable: false }) });
    for (let i = 1; i <= 8; i++) {
      await fran.forge(usage(`tg.fran.1.usage.a.${i}`, { input: 400_000, output: 0 }));
      // The same report delivered again: nothing more is counted or told.
      await fran.forge(usage(`tg.fran.1.usage.a.${i}`, { input: 400_000, output: 0 }));
    }
    const toOperator = p.sent().filter((m) => m.chatId === '9001');
    expect(toOperator.map((m) => m.text.split('\n')[0])).toEqual(["💸 80 % of the budget spent: fran's daily budget", "💸 Over budget: fran's daily budget"]);
    expect(toOperator[1]!.text).toContain('$1.12 spent of $1.00 for 2026-12-01');
    expect(toOperator.every((m) => m.token === BOT_TOKENS.fran)).toBe(true);
  });

  it('tells the operator at 80 % and at 100 % of a cap, once per period each', async () => {
    const alerts: SpendAlarm[] = [];
    const p = await start(alerts);
    const fran = p.runtime('fran', { label: 'x', contextWindow: 1, complete: async () => ({ ok: false, error: 'unused', retriable: false }) });
    // 400k tokens in at $0.40/M = $0.16 a report: 5 reports reach 80 % of $1.00, 7 pass 100 %.
    for (let i = 1; i <= 8; i++) await fran.forge(usage(`tg.fran.1.usage.a.${i}`, { input: 400_000, output: 0 }));
    expect(alerts.map(alarmKey)).toEqual(['day:2026-12-01:80', 'day:2026-12-01:100']);
    expect(alerts[1]).toMatchObject({ spentMicros: 1_120_000, capMicros: 1_000_000 });
    expect((await p.cp.spend.totals('fran', p.clock.now())).alerted).toEqual(['day:2026-12-01:100', 'day:2026-12-01:80']);
  });
});

describe('the config of a budget', () => {
  const base = (over: Record<string, unknown> = {}) => ({
    fleet: 'demo',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 }, budget: { monthlyUsd: 30 } },
      list: [
        { id: 'fran', budget: { dailyUsd: 2 } },
        { id: 'grif', model: { primary: 'openai/gpt-4.1-mini', fallbacks: ['acme/big-1'] } },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions' }, acme: { api: 'openai-completions', baseUrl: 'https://llm.acme.example/v1' } } },
    ...over,
  });
  const problems = (input: unknown) => {
    try {
      parseConfig(input);
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
      throw err;
    }
  };

  it('refuses a budgeted agent’s model without a price, naming the model and the key to add', () => {
    expect(problems(base())).toEqual([
      'agents.list[1].model: model "acme/big-1" has no price, and this agent has a budget: add models.prices["acme/big-1"] = { "input": …, "output": … } (USD per million tokens; cacheRead and cacheWrite too if the provider bills them)',
    ]);
    expect(problems(base({ models: { ...base().models, prices: { 'acme/big-1': { input: 1, output: 4 } } } }))).toEqual([]);
  });

  it('merges an agent’s budget key by key over the defaults’, and gives a metered runtime its caps and prices only', () => {
    const config = parseConfig(base({ models: { ...base().models, prices: { 'acme/big-1': { input: 1, output: 4 } } } }));
    const fran = runtimeConfigFor(config, 'fran');
    expect(fran.agent.budget).toEqual({ monthlyUsd: 30, dailyUsd: 2 });
    expect(fran.prices).toEqual({ 'openai/gpt-4.1-mini': DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini'] });
    expect(runtimeConfigFor(config, 'grif').prices).toEqual({
      'openai/gpt-4.1-mini': DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini'],
      'acme/big-1': { input: 1, output: 4 },
    });
    const unmetered = parseConfig({ ...base(), agents: { ...base().agents, defaults: { ...base().agents.defaults, budget: undefined } } });
    expect(runtimeConfigFor(unmetered, 'grif').prices).toBeUndefined();
  });

  it('refuses a budget on an openclaw agent, an empty budget and a negative cap', () => {
    const openclaw = base({ models: { ...base().models, prices: { 'acme/big-1': { input: 1, output: 4 } } } });
    (openclaw.agents.list[0] as Record<string, unknown>).runtime = { kind: 'openclaw', memoryMb: 2048, cpus: 1 };
    expect(problems(openclaw)).toEqual([
      expect.stringMatching(/^agents\.list\[0\]\.runtime\.kind: runtime\.kind "openclaw" does not report its model calls' token usage/),
    ]);
    expect(problems({ ...base(), agents: { ...base().agents, defaults: { ...base().agents.defaults, budget: {} } } })).toEqual([
      expect.stringMatching(/^agents\.defaults\.budget: needs dailyUsd, monthlyUsd or both/),
    ]);
    expect(problems({ ...base(), agents: { ...base().agents, defaults: { ...base().agents.defaults, budget: { dailyUsd: -1 } } } })).toEqual([
      expect.stringMatching(/^agents\.defaults\.budget\.dailyUsd:/),
    ]);
  });
});
