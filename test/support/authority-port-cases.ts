// The behaviour every adapter of the authority ports must have — inbound origins, the
// per-pair relay rate, the bot's sent messages and the per-chat reaction rate (#31), the pending-pairing cap, the session registry's blocked mark and stats, and the agent registry's workspace
// holds — as one set of cases, run against the
// in-memory and SQLite adapters (test/unit/authority-adapters.test.ts) and against the
// DynamoDB ones over the real SDK and the emulator (test/integration/authority-dynamo.test.ts).
import { expect, it } from 'vitest';
import type {
  AgentRegistry,
  InboundOrigin,
  InboundOrigins,
  PairingRecord,
  PairingStore,
  ReactionRates,
  RelayRates,
  SentMessages,
  SessionRegistry,
} from '../../shared/ports.ts';

/** A clock the cases move; adapters that read the time are built on it. */
export interface CaseClock {
  now(): number;
  advance(ms: number): void;
}

export const caseClock = (start = 1_800_000_000_000): CaseClock => {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
};

const origin = (id: string, at: number, over: Partial<InboundOrigin> = {}): InboundOrigin => ({
  id,
  agentId: 'fran',
  sessionKey: 'agent:fran:main',
  target: { channel: 'telegram', accountId: 'fran', chatId: '4242', threadId: 7 },
  createdAt: at,
  expiresAt: at + 60_000,
  ...over,
});

export function inboundOriginsCases(make: (clock: CaseClock) => InboundOrigins | Promise<InboundOrigins>): void {
  it('gives back the origin recorded for an inbound, and nothing for one never recorded', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    const relayed = origin('am.grif.q1', clock.now(), {
      agentId: 'grif',
      sessionKey: 'agent:grif:main',
      target: { channel: 'none' },
      hops: 2,
      conversationId: 'tg.fran.7',
      askedBy: { agentId: 'fran', sessionKey: 'agent:fran:main', target: { channel: 'local', chatId: 'fran' } },
    });
    await origins.put(origin('tg.fran.7', clock.now()));
    await origins.put(relayed);
    expect(await origins.get('tg.fran.7')).toEqual(origin('tg.fran.7', clock.now()));
    expect(await origins.get('am.grif.q1')).toEqual(relayed);
    expect(await origins.get('tg.fran.8')).toBeUndefined();
  });

  it('reads an expired origin as absent, and counts no relay on it', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.1', clock.now()));
    clock.advance(60_000);
    expect(await origins.get('tg.fran.1')).toBeUndefined();
    expect(await origins.takeRelay('tg.fran.1', 5)).toBe(false);
  });

  it('counts relays caused by an inbound up to the most allowed, and none for an unknown inbound', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.2', clock.now()));
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await origins.takeRelay('tg.fran.2', 3));
    expect(taken).toEqual([true, true, true, false]);
    expect(await origins.takeRelay('tg.fran.nope', 3)).toBe(false);
  });

  it('keeps the relay count when an origin is recorded again (a retried event)', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.3', clock.now()));
    expect(await origins.takeRelay('tg.fran.3', 1)).toBe(true);
    await origins.put(origin('tg.fran.3', clock.now()));
    expect(await origins.get('tg.fran.3')).toEqual(origin('tg.fran.3', clock.now()));
    expect(await origins.takeRelay('tg.fran.3', 1)).toBe(false);
  });

  it('never counts past the most allowed when relays race', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.4', clock.now()));
    const results = await Promise.all(Array.from({ length: 8 }, () => origins.takeRelay('tg.fran.4', 3)));
    expect(results.filter(Boolean)).toHaveLength(3);
  });

  it("moves a message's status reaction forward only, from the states given, and never past an expired origin", async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.5', clock.now(), { statusReactions: true, messageId: 31 }));
    // Nothing set yet: it is "unset", not queued.
    expect(await origins.advanceStatus('tg.fran.5', 'thinking', ['queued'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'queued', ['unset'])).toBe(true);
    expect(await origins.advanceStatus('tg.fran.5', 'queued', ['unset'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'tool', ['thinking'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'thinking', ['unset', 'queued'])).toBe(true);
    expect(await origins.advanceStatus('tg.fran.5', 'thinking', ['unset', 'queued'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'done', ['unset', 'queued', 'thinking', 'tool'])).toBe(true);
    // A late "queued", "thinking" or "tool", or a second "done", finds it done.
    expect(await origins.advanceStatus('tg.fran.5', 'queued', ['unset'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'thinking', ['unset', 'queued'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'done', ['unset', 'queued', 'thinking', 'tool'])).toBe(false);
    // Recording the origin again (a preview marked final) keeps the state; the record reads as it was put.
    await origins.put(origin('tg.fran.5', clock.now(), { statusReactions: true, messageId: 31, preview: { messageId: 9, final: true } }));
    expect(await origins.advanceStatus('tg.fran.5', 'error', ['unset', 'queued', 'thinking', 'tool'])).toBe(false);
    expect(await origins.get('tg.fran.5')).toEqual(
      origin('tg.fran.5', clock.now(), { statusReactions: true, messageId: 31, preview: { messageId: 9, final: true } }),
    );
    expect(await origins.advanceStatus('tg.fran.none', 'thinking', ['unset', 'queued'])).toBe(false);
    expect(await origins.advanceStatus('tg.fran.5', 'thinking', [])).toBe(false);
    await origins.put(origin('tg.fran.6', clock.now()));
    clock.advance(60_001);
    expect(await origins.advanceStatus('tg.fran.6', 'queued', ['unset'])).toBe(false);
  });

  it('lets one of racing moves to a final state win', async () => {
    const clock = caseClock();
    const origins = await make(clock);
    await origins.put(origin('tg.fran.7', clock.now(), { statusReactions: true }));
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => origins.advanceStatus('tg.fran.7', i % 2 ? 'done' : 'error', ['unset', 'queued', 'thinking', 'tool'])),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
}

export function relayRatesCases(make: () => RelayRates | Promise<RelayRates>): void {
  const W = 600_000;
  it('counts relays per ordered pair and window, up to the most allowed', async () => {
    const rates = await make();
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await rates.take('fran', 'grif', 0, W, 2));
    expect(taken).toEqual([true, true, false]);
    // The other direction and another window have counts of their own.
    expect(await rates.take('grif', 'fran', 0, W, 2)).toBe(true);
    expect(await rates.take('fran', 'grif', W, W, 2)).toBe(true);
  });

  it('never counts past the most allowed when relays race', async () => {
    const rates = await make();
    const results = await Promise.all(Array.from({ length: 7 }, () => rates.take('fran', 'ray', 2 * W, W, 4)));
    expect(results.filter(Boolean)).toHaveLength(4);
  });
}

const pending = (peerId: string, at: number, code = `CODE${peerId}`): PairingRecord => ({
  channel: 'telegram',
  accountId: 'fran',
  peerId,
  code,
  status: 'pending',
  createdAt: at,
  expiresAt: at + 3_600_000,
});

export function sentMessagesCases(make: (clock: CaseClock) => SentMessages | Promise<SentMessages>): void {
  it("finds the agent and session of the bot's message by chat and id, until it expires", async () => {
    const clock = caseClock();
    const sent = await make(clock);
    const record = { accountId: 'fran', chatId: '-1001', messageId: 42, agentId: 'grif', sessionKey: 'agent:grif:telegram:group:-1001:topic:3', threadId: 3 };
    await sent.put({ ...record, expiresAt: clock.now() + 60_000 });
    await sent.put({
      ...record,
      chatId: '4242',
      messageId: 43,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      threadId: undefined,
      expiresAt: clock.now() + 60_000,
    });
    expect(await sent.get('fran', '-1001', 42)).toEqual({ ...record, expiresAt: clock.now() + 60_000 });
    expect(await sent.get('fran', '4242', 43)).toEqual({
      accountId: 'fran',
      chatId: '4242',
      messageId: 43,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      expiresAt: clock.now() + 60_000,
    });
    // Another chat's message 42, another bot's, one never sent: nothing.
    expect(await sent.get('fran', '-1002', 42)).toBeUndefined();
    expect(await sent.get('grif', '-1001', 42)).toBeUndefined();
    expect(await sent.get('fran', '-1001', 41)).toBeUndefined();
    clock.advance(60_001);
    expect(await sent.get('fran', '-1001', 42)).toBeUndefined();
  });
}

export function reactionRatesCases(make: () => ReactionRates | Promise<ReactionRates>): void {
  const W = 600_000;
  it('counts reactions per chat and window, up to the most allowed, and never past it when they race', async () => {
    const rates = await make();
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await rates.take('fran:4242', 0, W, 2));
    expect(taken).toEqual([true, true, false]);
    // Another chat and another window have counts of their own.
    expect(await rates.take('fran:-1001', 0, W, 2)).toBe(true);
    expect(await rates.take('fran:4242', W, W, 2)).toBe(true);
    const raced = await Promise.all(Array.from({ length: 8 }, () => rates.take('fran:5151', 0, W, 3)));
    expect(raced.filter(Boolean)).toHaveLength(3);
  });
}

export function pairingCapCases(make: () => PairingStore | Promise<PairingStore>): void {
  it('holds at most the given number of senders waiting per account; a sender already waiting keeps their code', async () => {
    const store = await make();
    const t = 1_000;
    for (const peer of ['1', '2', '3']) expect(await store.createPending(pending(peer, t), { maxPerAccount: 3 })).toMatchObject({ peerId: peer });
    expect(await store.createPending(pending('4', t), { maxPerAccount: 3 })).toBe('full');
    expect(await store.createPending(pending('2', t + 1, 'OTHER'), { maxPerAccount: 3 })).toMatchObject({ peerId: '2', code: 'CODE2' });
    // Another account has a cap of its own.
    expect(await store.createPending({ ...pending('4', t), accountId: 'grif' }, { maxPerAccount: 3 })).toMatchObject({ peerId: '4' });
    expect((await store.listPending(t)).map((p) => p.peerId).sort()).toEqual(['1', '2', '3', '4']);
  });

  it('seats the next sender once one is approved or lapses', async () => {
    const store = await make();
    const t = 1_000;
    await store.createPending(pending('1', t), { maxPerAccount: 2 });
    await store.createPending(pending('2', t + 10), { maxPerAccount: 2 });
    expect(await store.createPending(pending('3', t + 20), { maxPerAccount: 2 })).toBe('full');
    expect(await store.approve('CODE1', t + 30)).toMatchObject({ peerId: '1', status: 'approved' });
    expect(await store.createPending(pending('3', t + 40), { maxPerAccount: 2 })).toMatchObject({ peerId: '3' });
    expect(await store.createPending(pending('4', t + 50), { maxPerAccount: 2 })).toBe('full');
    // Sender 2's code lapses an hour after it was issued.
    expect(await store.createPending(pending('4', t + 10 + 3_600_000), { maxPerAccount: 2 })).toMatchObject({ peerId: '4' });
  });

  it('never seats more than the cap when senders race', async () => {
    const store = await make();
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((peer) => store.createPending(pending(peer, 5_000), { maxPerAccount: 3 })));
    expect(results.filter((r) => r !== 'full')).toHaveLength(3);
    expect(await store.listPending(5_000)).toHaveLength(3);
  });

  it('has no cap when none is given', async () => {
    const store = await make();
    for (const peer of ['1', '2', '3', '4', '5']) expect(await store.createPending(pending(peer, 1_000))).not.toBe('full');
  });
}

export function sessionRegistryCases(make: () => SessionRegistry | Promise<SessionRegistry>): void {
  it('keeps a session blocked (the user blocked the bot) until a put without blockedAt, and never hands a session to another agent', async () => {
    const sessions = await make();
    const target = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 1 });
    expect((await sessions.get('agent:fran:main'))?.blockedAt).toBeUndefined();
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 2, blockedAt: 2 });
    expect(await sessions.get('agent:fran:main')).toEqual({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 2, blockedAt: 2 });
    // The user wrote again: the webhook records the session without the mark.
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 3 });
    expect(await sessions.get('agent:fran:main')).toEqual({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 3 });
    await expect(sessions.put({ sessionKey: 'agent:fran:main', agentId: 'grif', target, updatedAt: 4 })).rejects.toThrow();
  });

  it('records a runtime’s session stats only on its own existing session, never older over newer, and keeps them through puts', async () => {
    const sessions = await make();
    const target = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };
    const stats = { turns: 3, messages: 6, contextTokens: 4_321, contextWindow: 128_000, model: 'openai/gpt-4.1-mini', at: 50 };
    // No session yet: a report does not make one.
    expect(await sessions.recordStats('agent:fran:main', 'fran', stats)).toBe(false);
    expect(await sessions.get('agent:fran:main')).toBeUndefined();
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 1 });
    // Another agent's report on fran's session is refused.
    expect(await sessions.recordStats('agent:fran:main', 'grif', stats)).toBe(false);
    expect((await sessions.get('agent:fran:main'))?.stats).toBeUndefined();
    expect(await sessions.recordStats('agent:fran:main', 'fran', stats)).toBe(true);
    // An older report (a redelivered status) does not overwrite it; a newer one does.
    expect(await sessions.recordStats('agent:fran:main', 'fran', { ...stats, turns: 1, at: 40 })).toBe(false);
    const chosen = { ...stats, turns: 4, estimated: true as const, modelChosen: true as const, model: 'anthropic/claude-sonnet-4-5', at: 60 };
    expect(await sessions.recordStats('agent:fran:main', 'fran', chosen)).toBe(true);
    // The webhook's puts (a new message, a block mark and its clearing) leave the stats as they are.
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 70, blockedAt: 70 });
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 80 });
    expect(await sessions.get('agent:fran:main')).toEqual({ sessionKey: 'agent:fran:main', agentId: 'fran', target, updatedAt: 80, stats: chosen });
    expect((await sessions.list('fran', 10)).map((s) => s.stats)).toEqual([chosen]);
  });
}

export function agentRegistryHoldCases(make: () => AgentRegistry | Promise<AgentRegistry>): void {
  it('lets only the hold’s own id renew or release it; a lapsed hold retaken by another id is not the first holder’s any more', async () => {
    const registry = await make();
    expect(await registry.transition('fran', ['asleep', 'absent'], 'held', 1, { holdId: 'first-hold-0001' })).toBe(true);
    expect(await registry.get('fran')).toMatchObject({ state: 'held', holdId: 'first-hold-0001' });
    expect(await registry.transition('fran', ['held'], 'held', 2, { holdId: 'first-hold-0001' })).toBe(true); // renewed
    expect(await registry.transition('fran', ['held'], 'held', 3, { holdId: 'someone-else-01' })).toBe(false);
    expect(await registry.transition('fran', ['held'], 'asleep', 3, { holdId: 'someone-else-01' })).toBe(false);
    expect(await registry.get('fran')).toMatchObject({ state: 'held', stateChangedAt: 2, holdId: 'first-hold-0001' });
    // The lease lapsed: the health tick releases it without an id, and the id is forgotten.
    expect(await registry.transition('fran', ['held'], 'asleep', 4)).toBe(true);
    expect((await registry.get('fran'))?.holdId).toBeUndefined();
    // A second transfer takes it: the first one's renewal and release are refused, and change nothing.
    expect(await registry.transition('fran', ['asleep', 'absent'], 'held', 5, { holdId: 'second-hold-002' })).toBe(true);
    expect(await registry.transition('fran', ['held'], 'held', 6, { holdId: 'first-hold-0001' })).toBe(false);
    expect(await registry.transition('fran', ['held'], 'asleep', 6, { holdId: 'first-hold-0001' })).toBe(false);
    expect(await registry.get('fran')).toMatchObject({ state: 'held', stateChangedAt: 5, holdId: 'second-hold-002' });
    // Its own holder releases it.
    expect(await registry.transition('fran', ['held'], 'asleep', 7, { holdId: 'second-hold-002' })).toBe(true);
    expect(await registry.get('fran')).toMatchObject({ state: 'asleep', stateChangedAt: 7 });
    expect((await registry.get('fran'))?.holdId).toBeUndefined();
  });
}
