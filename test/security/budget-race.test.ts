// The hostile cases of a budget (#31), locally: sessions of one agent racing one budget through
// the runtime's own channel (the real local server and its SQLite ledger), and a runtime trying
// to spend another agent's budget, choose its own caps or lease, or reach a ledger without its
// token. The bound: a period's spend passes its cap by at most one model call, however many
// sessions race. (The same race over DynamoDB and real runtime processes: test/fault/budget-sigkill.test.ts.)
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { createLocalServer, type LocalServer } from '../../local/server.ts';
import { StorageWatch } from '../../local/storage-watch.ts';
import { HttpRuntimeChannel } from '../../shared/adapters/local/http-runtime-channel.ts';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { periodsAt } from '../../shared/budget/periods.ts';
import { callCostMicros, DEFAULT_MODEL_PRICES } from '../../shared/budget/prices.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { assistantMessage, type ModelClient, type ModelResult } from '../../runtime-image/src/model/model.ts';
import { meteredModel } from '../../runtime-image/src/spend/metered-model.ts';
import { rawRequest } from '../support/raw-http.ts';

const TOKENS: Record<string, string> = { alpha: 'a'.repeat(48), beta: 'b'.repeat(48), gamma: 'g'.repeat(48) };
const MINI = 'openai/gpt-4.1-mini';
const PRICE = DEFAULT_MODEL_PRICES[MINI]!;
/** One call: 10,000 tokens in, 1,000 out. */
const USAGE = { input: 10_000, output: 1_000, cacheRead: 0, cacheWrite: 0 };
const CALL = callCostMicros(USAGE, PRICE);
/** $0.05: about nine calls' worth, and a few calls' ceilings. */
const CAP_USD = 0.05;
let server: LocalServer;
let url: string;
let cp: LocalControlPlane;

beforeAll(async () => {
  const config = parseConfig({
    fleet: 'race',
    agents: {
      defaults: { model: MINI, runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'alpha', default: true, budget: { dailyUsd: CAP_USD } }, { id: 'beta', budget: { dailyUsd: CAP_USD } }, { id: 'gamma' }],
    },
    models: { providers: { openai: { api: 'openai-completions' } } },
  });
  const log = memoryLogger();
  cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new InMemorySecretStore(), systemClock, log);
  server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    adminToken: 'c'.repeat(64),
    dashboardToken: 'd'.repeat(64),
    agentOfToken: (token) => Object.entries(TOKENS).find(([, t]) => t === token)?.[0],
    agents: () => [],
    status: () => ({ fleet: 'race', where: 'local (test)', agents: [] }),
    act: async () => 'running',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A provider that answers after a little while (so calls overlap), reporting USAGE, with an output cap of 4,096 tokens. */
function provider(): ModelClient & { calls: number } {
  const p = {
    label: MINI,
    contextWindow: 100_000,
    calls: 0,
    outputCap: () => 4_096,
    async complete(): Promise<ModelResult> {
      p.calls++;
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 30)));
      const message = assistantMessage(MINI, [{ type: 'text', text: 'ok' }]);
      message.usage = { ...USAGE, totalTokens: 11_000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      return { ok: true, message };
    },
  };
  return p;
}

/** One session: model calls one after another, through the agent's own channel, until the budget refuses one. */
async function session(agentId: string, name: string, provided: ReturnType<typeof provider>): Promise<number> {
  const channel = new HttpRuntimeChannel(url, TOKENS[agentId]!);
  const model = meteredModel(provided, MINI, {
    agent: { id: agentId },
    caps: { dayMicros: 1 }, // the runtime's own idea of its caps: the control plane uses the config's
    prices: { [MINI]: PRICE },
    ledger: channel,
    outbox: { send: async () => {} },
    clock: systemClock,
    log: memoryLogger(),
    holdMs: 60_000,
    waitMs: 5,
  });
  let n = 0;
  for (;;) {
    const result = await model.complete({
      systemPrompt: 'be brief',
      messages: [],
      tools: [],
      call: { inboundId: `${name}.m`, sessionKey: `agent:${agentId}:${name}`, nextCallId: () => `${name}.usage.a.${++n}` },
    });
    if (!result.ok) return result.overBudget ? n : Promise.reject(new Error(result.error));
  }
}

describe('sessions racing one budget, through the runtime channel', () => {
  it('pass the cap by at most one model call, however many race, and every call that went is counted in the ledger', { timeout: 60_000 }, async () => {
    const provided = provider();
    await Promise.all(['s1', 's2', 's3', 's4', 's5', 's6'].map((name) => session('alpha', name, provided)));
    const month = await cp.spendLedger.month('alpha', periodsAt(Date.now()).month);
    const cap = CAP_USD * 1_000_000;
    expect(month.spentMicros).toBe(provided.calls * CALL);
    expect(month.holds).toEqual({});
    // Over by at most one call (the budget's last, let through alone), and the budget was used.
    expect(month.spentMicros).toBeGreaterThan(cap);
    expect(month.spentMicros - cap).toBeLessThanOrEqual(CALL);
    // The runtime's own caps (1 µUSD) were not the ones applied: the config's were.
    expect(provided.calls).toBeGreaterThan(1);
  });
});

const raw = (body: unknown, token?: string) =>
  rawRequest(
    `${url}/runtime/spend`,
    'POST',
    { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    JSON.stringify(body),
  );

describe('a runtime and another agent’s budget', () => {
  it('holds and settles in its own ledger only, whatever agent it names', async () => {
    const month = periodsAt(Date.now()).month;
    const alpha = new HttpRuntimeChannel(url, TOKENS.alpha!);
    const before = await cp.spendLedger.month('beta', month);
    expect(await alpha.reserve('beta', { callId: 'forged.1', micros: 1_000, at: 0, caps: {}, holdMs: 60_000 })).toMatchObject({ kind: expect.any(String) });
    await alpha.settle('beta', { callId: 'forged.1', month, micros: 123, at: 0 });
    expect(await cp.spendLedger.month('beta', month)).toEqual(before);
    expect(await alpha.month('beta', month)).toEqual(await cp.spendLedger.month('alpha', month));
  });

  it('refuses a request that names an agent, its own caps, a lease past two hours, no token or another’s token', async () => {
    const month = periodsAt(Date.now()).month;
    expect((await raw({ op: 'reserve', callId: 'x', micros: 1, holdMs: 60_000, agentId: 'beta' }, TOKENS.alpha)).status).toBe(400);
    expect((await raw({ op: 'reserve', callId: 'x', micros: 1, holdMs: 60_000, caps: { dayMicros: 1e12 } }, TOKENS.alpha)).status).toBe(400);
    expect((await raw({ op: 'reserve', callId: 'x', micros: 1, holdMs: 365 * 24 * 3600_000 }, TOKENS.alpha)).status).toBe(400);
    expect((await raw({ op: 'reserve', callId: 'x', micros: -5, holdMs: 60_000 }, TOKENS.alpha)).status).toBe(400);
    expect((await raw({ op: 'month', month }, undefined)).status).toBe(401);
    expect((await raw({ op: 'month', month }, 'z'.repeat(48))).status).toBe(401);
    // An agent without a budget keeps no ledger to spend from.
    const gamma = await raw({ op: 'reserve', callId: 'x', micros: 1, holdMs: 60_000 }, TOKENS.gamma);
    expect(gamma.status).toBe(404);
    expect(JSON.parse(gamma.body).error).toBe('agent "gamma" has no budget, so it keeps no spend ledger');
  });
});
