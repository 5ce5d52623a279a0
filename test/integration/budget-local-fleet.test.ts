// Budgets (#31) in `npm start`'s fleet: two agents with daily caps, their runtimes child
// processes, the model a fake server over HTTP that reports usage (10,000 tokens in and 1,000
// out a call: $0.0056 at gpt-4.1-mini's price). Fran answers until her count passes the cap,
// then the chat box answers for her and the model is not asked; /status says so; her cron job
// is skipped; a restarted fleet still knows her count and her runtime's ledger. Ray's tool
// loop is stopped by his own runtime before its next model call, mid-turn, with the same note.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { periodsAt } from '../../shared/budget/periods.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';

const MODEL_KEY = 'sk-test-local-budget-0123456789abcdef';
const USAGE = { input: 10_000, output: 1_000 };
/** What one call costs in µUSD: 10,000 × $0.40/M + 1,000 × $1.60/M. */
const CALL = 5_600;
let dir: string;
let fleet: LocalFleet | undefined;
let model: FakeModel;

const agentLines = async (agentId: string) => (await chatLines(fleet!, agentId)).filter((l) => l.role === 'agent').map((l) => l.text);
async function ask(agentId: string, text: string, lines: number): Promise<string> {
  expect((await postChat(fleet!, agentId, text)).status).toBe(202);
  await expect.poll(async () => (await agentLines(agentId)).length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(lines);
  return (await agentLines(agentId))[lines - 1]!;
}

beforeAll(async () => {
  model = await startModel({
    apiKey: MODEL_KEY,
    // Ray's model keeps calling a tool; fran's answers what she is asked.
    responder: (request) =>
      request.lastUserText.startsWith('loop')
        ? { toolCalls: [{ name: 'list', arguments: { path: '.' } }], usage: USAGE }
        : { text: `answer to ${request.lastUserText}`, usage: USAGE },
  });
  dir = tempDir('cf-budget-local-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.agents.list = [
    // Room for one call's cost, not two: the second call goes as the budget's last, and the third is refused.
    { id: 'fran', name: 'Fran', default: true, budget: { dailyUsd: 0.01 } },
    { id: 'ray', name: 'Ray', budget: { dailyUsd: 0.01 } },
  ];
  config.bindings = [];
  config.channels = {};
  config.cron = { jobs: [{ id: 'digest', agentId: 'fran', schedule: { kind: 'every', every: '1d' }, payload: { kind: 'agentTurn', message: 'digest' } }] };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY }, 'clawfleet/demo/agents/ray': { OPENAI_API_KEY: MODEL_KEY } }),
  );
  fleet = await startFleet({ dir, running: ['fran', 'ray'] });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a budget in a local fleet', () => {
  it('answers until the count passes the cap, then answers for the agent without asking the model', { timeout: 90_000 }, async () => {
    expect(await ask('fran', 'one', 1)).toBe('answer to one');
    expect(await ask('fran', 'two', 2)).toBe('answer to two');
    const asked = model.requests().length;
    const now = Date.now();
    expect(await fleet!.cp.spend.totals('fran', now)).toMatchObject({ dayMicros: 2 * CALL });
    const note = await ask('fran', 'three', 3);
    expect(note).toMatch(/^⛔ Fran has reached its daily budget: \$0\.0112 spent of \$0\.01 today \(UTC\), so this message was not answered\./);
    expect(note).toContain('budget.dailyUsd of agent "fran"');
    // The control plane answered: nothing was queued, no model asked.
    expect(fleet!.cp.inbox('fran').depth).toBe(0);
    expect(model.requests().length).toBe(asked);
    // The runtime's own ledger agrees with the control plane's count, and holds nothing.
    const ledger = await fleet!.cp.spendLedger.month('fran', periodsAt(now).month);
    expect(ledger.spentMicros).toBe(2 * CALL);
    expect(ledger.holds).toEqual({});
  });

  it('says it in /status and clawfleet status, and pauses the agent’s cron job', { timeout: 60_000 }, async () => {
    const status = await ask('fran', '/status', 4);
    expect(status).toMatch(
      /Spend: \$0\.0112 of \$0\.01 today · \$0\.0112 this month \(UTC\) — daily budget reached: messages are not answered and cron jobs and heartbeats are paused until 00:00 UTC/,
    );
    expect(fleet!.status().agents.find((a) => a.id === 'fran')!.spend).toMatch(/^\$0\.0112 of \$0\.01 today .* daily budget reached/);
    expect(fleet!.status().agents.find((a) => a.id === 'ray')!.spend).toMatch(/^\$0\.00 of \$0\.01 today/);
    const run = await fleet!.cp.runTrigger({
      v: 1,
      kind: 'job',
      owner: 'config',
      agentId: 'fran',
      jobId: 'digest',
      sessionTarget: 'main',
      payload: { kind: 'agentTurn', message: 'digest' },
    });
    expect(run).toEqual({ skipped: expect.stringMatching(/^over its daily budget \(\$0\.0112 of \$0\.01\) until \d{4}-\d\d-\d\dT00:00:00\.000Z$/) });
    expect(fleet!.cp.inbox('fran').depth).toBe(0);
  });

  it('stops a tool loop before its next model call, mid-turn, in the runtime', { timeout: 60_000 }, async () => {
    const before = model.requests().length;
    const note = await ask('ray', 'loop until told', 1);
    expect(note).toMatch(/^⛔ Ray has reached its daily budget: \$0\.0112 spent of \$0\.01 today/);
    // Two calls, each a tool call: the second went alone as the budget's last; the third was never made.
    expect(model.requests().length - before).toBe(2);
    expect((await fleet!.cp.spend.totals('ray', Date.now())).dayMicros).toBe(2 * CALL);
  });

  it('keeps the count and the ledger through a restart of the fleet', { timeout: 90_000 }, async () => {
    await fleet!.stop();
    fleet = undefined;
    fleet = await startFleet({ dir, running: ['fran', 'ray'] });
    const now = Date.now();
    expect((await fleet.cp.spend.totals('fran', now)).dayMicros).toBe(2 * CALL);
    expect((await fleet.cp.spendLedger.month('ray', periodsAt(now).month)).spentMicros).toBe(2 * CALL);
    const asked = model.requests().length;
    expect(await ask('fran', 'four', 5)).toMatch(/^⛔ Fran has reached its daily budget/);
    expect(model.requests().length).toBe(asked);
  });
});
