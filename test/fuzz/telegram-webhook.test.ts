// Fuzzing the Telegram webhook: ≥10,000 generated bodies (FUZZ_BODIES) into the pure core,
// and as many Function URL events into λ telegram-webhook's own parsing, both over
// in-memory adapters. Never a throw, never a 5xx for the sender's error, and every queued
// envelope parses with the protocol schema. FUZZ_SEED replays a run.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import {
  InMemoryInboundDedupe,
  InMemoryInboundOrigins,
  InMemoryPairingStore,
  InMemoryReactionRates,
  InMemorySentMessages,
  InMemorySessionRegistry,
} from '../../shared/adapters/memory/in-memory-state.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { handleTelegramWebhook, type TelegramWebhookDeps } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';
import { parseInbound } from '../../shared/protocol/envelopes.ts';
import type { ChannelTarget } from '../../shared/ports.ts';
import type { FunctionUrlEvent, FunctionUrlResult } from '../../functions/function-url.ts';
import { writeFigures } from '../support/figures.ts';
import { prng, seedFrom } from '../support/prng.ts';
import { fuzzBody, oddText, type BodyKind } from './telegram-bodies.ts';
import exampleConfig from '../../clawfleet.json' with { type: 'json' };

const BODIES = Number(process.env.FUZZ_BODIES ?? 10_000);
const SEED = seedFrom(process.env, 424_242);
const SECRET = 'fuzz-webhook-secret-0123456789abcdef';
const SENDERS = [4242, 4343];
/** What a sender's mistake may get; anything else (a 5xx above all) is a bug. */
const CLIENT_ANSWERS = new Set([200, 400, 401, 404, 405, 413]);

// λ telegram-webhook builds its control plane at module scope; here its core gets in-memory adapters.
const plane = vi.hoisted(() => ({ deps: undefined as unknown }));
vi.mock('../../functions/control-plane.ts', () => ({ awsControlPlane: () => ({ telegramWebhookDeps: () => plane.deps }), askingCompute: () => ({}) }));

function memoryPlane() {
  const raw = structuredClone(exampleConfig) as Record<string, any>;
  raw.channels.telegram.dmPolicy = 'open';
  raw.channels.telegram.groups = { '*': { requireMention: false } };
  raw.session = { dmScope: 'per-peer' };
  // The users' reactions (#31): to any message, the bot's own among them (messages 1–10 in every chat).
  raw.channels.telegram.reactionNotifications = 'all';
  const sent = new InMemorySentMessages(() => 1_000);
  const reactions = {
    sent: {
      put: (record: Parameters<InMemorySentMessages['put']>[0]) => sent.put(record),
      get: async (accountId: string, chatId: string, messageId: number) =>
        messageId <= 10
          ? { accountId, chatId, messageId, agentId: 'fran', sessionKey: `agent:fran:telegram:dm:${chatId}`, expiresAt: 2_000 }
          : sent.get(accountId, chatId, messageId),
    },
    rates: new InMemoryReactionRates(),
  };
  const queues = new InMemoryAgentQueues();
  const log = memoryLogger();
  let codes = 0;
  const deps: TelegramWebhookDeps = {
    config: parseConfig(raw),
    webhookSecret: async () => SECRET,
    queues,
    dedupe: new InMemoryInboundDedupe(() => 1_000),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(() => 1_000),
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 1000002, username: 'fran_bot' }),
    channel: async () => ({ maxTextLength: 4096, sendText: async (_t: ChannelTarget, _s: string) => {}, sendTyping: async () => {} }),
    newPairingCode: () => `CODE${++codes}`,
    reactions,
    clock: { now: () => 1_000 },
    log,
  };
  return { deps, queues, log };
}

/** Every envelope in every agent queue, checked against the protocol schema, its queue and the origin recorded for it. */
async function malformedQueued(queues: InMemoryAgentQueues, origins: InMemoryInboundOrigins): Promise<string[]> {
  const problems: string[] = [];
  for (const [agentId, queue] of queues.queues) {
    for (const body of queue.bodies()) {
      try {
        const e = parseInbound(body);
        if (e.agentId !== agentId) problems.push(`${e.id} for ${e.agentId} in the queue of ${agentId}`);
        const origin = await origins.get(e.id);
        if (!origin || origin.agentId !== e.agentId || origin.sessionKey !== ('sessionKey' in e ? e.sessionKey : undefined))
          problems.push(`${e.id} queued without its own origin`);
      } catch (err) {
        problems.push(`${(err as Error).message} — ${body.slice(0, 200)}`);
      }
    }
  }
  return problems;
}

const tally = () => ({ bodies: 0, byKind: {} as Record<string, number>, byStatus: {} as Record<string, number>, queued: 0 });
const figures = { core: tally(), handler: tally() };
function count(t: ReturnType<typeof tally>, kind: string, status: number) {
  t.bodies++;
  t.byKind[kind] = (t.byKind[kind] ?? 0) + 1;
  t.byStatus[status] = (t.byStatus[status] ?? 0) + 1;
}

afterAll(() => {
  writeFigures('fuzz-telegram-webhook', {
    command: `FUZZ_BODIES=${BODIES} FUZZ_SEED=${SEED} npx vitest run test/fuzz/telegram-webhook.test.ts`,
    seed: SEED,
    ...figures,
  });
});

describe(`the Telegram webhook core, fuzzed with ${BODIES} bodies (seed ${SEED})`, () => {
  it('never throws, answers a sender’s error with 4xx, and queues only well-formed envelopes', async () => {
    const r = prng(SEED);
    const { deps, queues, log } = memoryPlane();
    const failures: string[] = [];
    let reactionsQueued = 0;
    for (let i = 0; i < BODIES && failures.length < 5; i++) {
      const { kind, body } = fuzzBody(r, i, SENDERS);
      const accountId = r.chance(0.95) ? 'fran' : r.pick(['', 'zed', '__proto__', 'constructor', oddText(r, 40)]);
      const secretToken = r.chance(0.9) ? SECRET : r.pick([undefined, '', 'nope', SECRET.slice(0, -1), `${SECRET} `, SECRET.toUpperCase(), oddText(r, 40)]);
      const depthBefore = [...queues.queues.values()].reduce((n, q) => n + q.depth, 0);
      let res: Awaited<ReturnType<typeof handleTelegramWebhook>>;
      try {
        res = await handleTelegramWebhook({ accountId, secretToken, body }, deps);
      } catch (err) {
        failures.push(`#${i} ${kind}: threw ${(err as Error).stack}`);
        continue;
      }
      count(figures.core, kind, res.status);
      const depthAfter = [...queues.queues.values()].reduce((n, q) => n + q.depth, 0);
      if (!CLIENT_ANSWERS.has(res.status)) failures.push(`#${i} ${kind}: status ${res.status} ${JSON.stringify(res.body)} for ${body.slice(0, 300)}`);
      if (res.status !== 200 && depthAfter !== depthBefore) failures.push(`#${i} ${kind}: ${res.status} but something was queued`);
      if (JSON.stringify(res.body).length > 1_000) failures.push(`#${i} ${kind}: a ${JSON.stringify(res.body).length}-character answer echoes the input`);
      const bad = await malformedQueued(queues, deps.origins as InMemoryInboundOrigins);
      if (bad.length > 0) failures.push(`#${i} ${kind}: queued a malformed envelope: ${bad[0]}`);
      figures.core.queued += depthAfter;
      reactionsQueued += [...queues.queues.values()].flatMap((q) => q.bodies()).filter((b) => b.includes('"reaction":')).length;
      queues.queues.clear();
    }
    expect(failures).toEqual([]);
    expect(figures.core.bodies).toBe(BODIES);
    // Users' reactions (#31) were queued too, each a well-formed note.
    expect(reactionsQueued).toBeGreaterThan(0);
    // The run did exercise the happy path and every refusal.
    expect(figures.core.queued).toBeGreaterThan(BODIES / 20);
    for (const status of [400, 401, 404, 413]) expect(figures.core.byStatus[status], `status ${status}`).toBeGreaterThan(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Log lines stay small and never hold the secret or a whole body.
    expect(log.lines.every((l) => JSON.stringify(l).length < 4_000)).toBe(true);
    expect(JSON.stringify(log.lines)).not.toContain(SECRET);
  });
});

describe(`λ telegram-webhook’s event parsing, fuzzed with ${BODIES} Function URL events (seed ${SEED + 1})`, () => {
  let handler: (e: FunctionUrlEvent) => Promise<FunctionUrlResult>;
  let memory: ReturnType<typeof memoryPlane>;

  beforeAll(async () => {
    memory = memoryPlane();
    plane.deps = memory.deps;
    handler = (await import('../../functions/telegram-webhook.ts')).handler;
  });

  it('never throws, answers a sender’s error with 4xx, and queues only well-formed envelopes', async () => {
    const r = prng(SEED + 1);
    const failures: string[] = [];
    for (let i = 0; i < BODIES && failures.length < 5; i++) {
      const { kind, body } = fuzzBody(r, i, SENDERS);
      const base64 = r.chance(0.2);
      const event: FunctionUrlEvent = {
        rawPath: r.chance(0.9)
          ? r.pick(['/telegram/fran', '/telegram/fran/'])
          : r.pick([
              '/',
              '/telegram',
              '/telegram/',
              '/telegram/fran/x',
              '/telegram/zed',
              '/../telegram/fran',
              `/telegram/${oddText(r, 30)}`,
              '/telegram/%66ran',
            ]),
        headers: {
          'content-type': r.pick(['application/json', 'text/plain', '']),
          ...(r.chance(0.9) ? { 'x-telegram-bot-api-secret-token': r.chance(0.9) ? SECRET : oddText(r, 40) } : {}),
        },
        ...(r.chance(0.98) ? { body: base64 ? (r.chance(0.8) ? Buffer.from(body).toString('base64') : oddText(r, 100)) : body } : {}),
        isBase64Encoded: base64,
        requestContext: { http: { method: r.chance(0.95) ? 'POST' : r.pick(['GET', 'PUT', 'DELETE', 'OPTIONS', 'post', '']) } },
      };
      let res: FunctionUrlResult;
      try {
        res = await handler(event);
      } catch (err) {
        failures.push(`#${i} ${kind}: threw ${(err as Error).stack}`);
        continue;
      }
      count(figures.handler, kind as BodyKind, res.statusCode);
      if (!CLIENT_ANSWERS.has(res.statusCode)) failures.push(`#${i} ${kind}: status ${res.statusCode} ${res.body}`);
      try {
        JSON.parse(res.body);
      } catch {
        failures.push(`#${i} ${kind}: the answer is not JSON: ${res.body.slice(0, 100)}`);
      }
      const bad = await malformedQueued(memory.queues, memory.deps.origins as InMemoryInboundOrigins);
      if (bad.length > 0) failures.push(`#${i} ${kind}: queued a malformed envelope: ${bad[0]}`);
      figures.handler.queued += [...memory.queues.queues.values()].reduce((n, q) => n + q.depth, 0);
      memory.queues.queues.clear();
    }
    expect(failures).toEqual([]);
    expect(figures.handler.bodies).toBe(BODIES);
    expect(figures.handler.queued).toBeGreaterThan(BODIES / 20);
  });
});
