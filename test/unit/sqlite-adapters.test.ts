// The same behaviour cases against the in-memory fakes and the SQLite adapters local mode
// runs on, so both keep SQS FIFO's and the DynamoDB tables' semantics; then what only the
// SQLite ones add: dead letters after maxReceiveCount, and surviving a restart.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { InMemoryFifoQueue } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeliveryLedger, InMemoryInboundDedupe, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteAgentQueues, SqliteDeadLetters, SqliteFifoQueue } from '../../shared/adapters/sqlite/sqlite-queues.ts';
import { SqliteDeliveryLedger, SqliteInboundDedupe, SqliteSessionRegistry } from '../../shared/adapters/sqlite/sqlite-state.ts';
import type { DeliveryLedger, InboundDedupe, Inbox, SessionRegistry } from '../../shared/ports.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

interface TestQueue extends Inbox {
  push(body: string, group: string, dedupId: string): void;
  readonly depth: number;
  releaseInFlight(): number;
  receive(waitSeconds: number, signal?: AbortSignal, visibilitySeconds?: number): ReturnType<Inbox['receive']>;
}

function fakeClock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const queueImpls: [string, (now: () => number) => TestQueue][] = [
  ['InMemoryFifoQueue', (now) => new InMemoryFifoQueue(now, 30_000)],
  ['SqliteFifoQueue', (now) => new SqliteFifoQueue(openStateDatabase(':memory:'), 'q', { now, visibilityMs: 30_000 })],
];

describe.each(queueImpls)('%s', (_name, make) => {
  it('hands out messages of one group in order, one at a time', async () => {
    const clock = fakeClock();
    const q = make(clock.now);
    q.push('a1', 'a', 'id-a1');
    q.push('a2', 'a', 'id-a2');
    q.push('b1', 'b', 'id-b1');
    const [first] = await q.receive(0);
    expect(first!.body).toBe('a1');
    // a2 waits behind a1 in flight; b1 is free.
    const [second] = await q.receive(0);
    expect(second!.body).toBe('b1');
    expect(await q.receive(0)).toEqual([]);
    await q.delete(first!.receipt);
    expect((await q.receive(0))[0]!.body).toBe('a2');
  });

  it('drops a message whose dedup id it has already seen', async () => {
    const q = make(fakeClock().now);
    q.push('one', 'g', 'same-id');
    q.push('one again', 'g', 'same-id');
    expect(q.depth).toBe(1);
  });

  it('hands a message out again once its visibility runs out, counting receives', async () => {
    const clock = fakeClock();
    const q = make(clock.now);
    q.push('m', 'g', 'id');
    const [m1] = await q.receive(0);
    expect(m1!.receiveCount).toBe(1);
    clock.advance(29_000);
    expect(await q.receive(0)).toEqual([]);
    clock.advance(2_000);
    const [m2] = await q.receive(0);
    expect(m2!.receiveCount).toBe(2);
    expect(m2!.receipt).not.toBe(m1!.receipt);
  });

  it('keeps an extended message hidden and refuses a stale receipt', async () => {
    const clock = fakeClock();
    const q = make(clock.now);
    q.push('m', 'g', 'id');
    const [m] = await q.receive(0);
    await q.extend(m!.receipt, 120);
    clock.advance(60_000);
    expect(await q.receive(0)).toEqual([]);
    await q.delete(m!.receipt);
    await expect(q.extend(m!.receipt, 10)).rejects.toThrow(/no longer valid/);
    expect(q.depth).toBe(0);
  });

  it('makes a released message visible at once', async () => {
    const q = make(fakeClock().now);
    q.push('m', 'g', 'id');
    const [m] = await q.receive(0);
    await q.release(m!.receipt);
    expect((await q.receive(0))[0]!.body).toBe('m');
  });

  it('releases everything in flight when its consumer is known dead', async () => {
    const q = make(fakeClock().now);
    q.push('a', 'a', '1');
    q.push('b', 'b', '2');
    await q.receive(0);
    await q.receive(0);
    expect(q.releaseInFlight()).toBe(2);
    expect((await q.receive(0)).length).toBe(1);
  });

  it('honours a per-receive visibility timeout', async () => {
    const clock = fakeClock();
    const q = make(clock.now);
    q.push('m', 'g', 'id');
    await q.receive(0, undefined, 5);
    clock.advance(5_001);
    expect((await q.receive(0))[0]!.receiveCount).toBe(2);
  });

  it('wakes a waiting long poll when a message arrives', async () => {
    const q = make(Date.now);
    const polled = q.receive(20);
    setTimeout(() => q.push('late', 'g', 'late-id'), 30);
    const started = Date.now();
    expect((await polled)[0]!.body).toBe('late');
    // Woken by the message, not at the poll's 20 s end (a generous bound: a busy machine is slow, not that slow).
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('hands nothing to a long poll whose caller gave up, even when the abort and a message come together', async () => {
    const q = make(Date.now);
    const gaveUp = new AbortController();
    const polled = q.receive(5, gaveUp.signal);
    // A dead runtime: its poll is aborted, then its messages are released (which wakes polls).
    gaveUp.abort();
    q.push('for the next runtime', 'g', 'next-id');
    expect(await polled).toEqual([]);
    expect((await q.receive(0))[0]!.body).toBe('for the next runtime');
  });
});

const dedupeImpls: [string, (now: () => number) => InboundDedupe][] = [
  ['InMemoryInboundDedupe', (now) => new InMemoryInboundDedupe(now)],
  ['SqliteInboundDedupe', (now) => new SqliteInboundDedupe(openStateDatabase(':memory:'), now)],
];

describe.each(dedupeImpls)('%s', (_name, make) => {
  it('remembers a key until it expires', async () => {
    const clock = fakeClock();
    const d = make(clock.now);
    expect(await d.seen('k')).toBe(false);
    await d.remember('k', clock.now() + 1_000);
    expect(await d.seen('k')).toBe(true);
    clock.advance(1_000);
    expect(await d.seen('k')).toBe(false);
  });
});

const sessionImpls: [string, () => SessionRegistry][] = [
  ['InMemorySessionRegistry', () => new InMemorySessionRegistry()],
  ['SqliteSessionRegistry', () => new SqliteSessionRegistry(openStateDatabase(':memory:'))],
];

describe.each(sessionImpls)('%s', (_name, make) => {
  it('records a session’s owner and its latest reply target', async () => {
    const s = make();
    await s.put({ sessionKey: 'agent:jerry:main', agentId: 'jerry', target: { channel: 'local', chatId: 'jerry' }, updatedAt: 1 });
    await s.put({ sessionKey: 'agent:jerry:main', agentId: 'jerry', target: { channel: 'telegram', accountId: 'jerry', chatId: '42' }, updatedAt: 2 });
    expect(await s.get('agent:jerry:main')).toEqual({
      sessionKey: 'agent:jerry:main',
      agentId: 'jerry',
      target: { channel: 'telegram', accountId: 'jerry', chatId: '42' },
      updatedAt: 2,
    });
    expect(await s.get('agent:fran:main')).toBeUndefined();
  });

  it('refuses to move a session to another agent', async () => {
    const s = make();
    await s.put({ sessionKey: 'agent:jerry:main', agentId: 'jerry', target: { channel: 'local', chatId: 'jerry' }, updatedAt: 1 });
    await expect(s.put({ sessionKey: 'agent:jerry:main', agentId: 'fran', target: { channel: 'local', chatId: 'fran' }, updatedAt: 2 })).rejects.toThrow(
      /belongs to/,
    );
    expect((await s.get('agent:jerry:main'))?.agentId).toBe('jerry');
  });
});

const ledgerImpls: [string, () => DeliveryLedger][] = [
  ['InMemoryDeliveryLedger', () => new InMemoryDeliveryLedger()],
  ['SqliteDeliveryLedger', () => new SqliteDeliveryLedger(openStateDatabase(':memory:'))],
];

describe.each(ledgerImpls)('%s', (_name, make) => {
  it('lets one sender claim a part, and nobody once it is delivered', async () => {
    const l = make();
    expect(await l.claim('r#0', 1_000, 60_000)).toBe('claimed');
    expect(await l.claim('r#0', 2_000, 60_000)).toBe('in-flight');
    await l.complete('r#0', 3_000);
    expect(await l.claim('r#0', 100_000_000, 60_000)).toBe('delivered');
  });

  it('lets another sender claim once a lease runs out or is released', async () => {
    const l = make();
    await l.claim('r#0', 1_000, 60_000);
    expect(await l.claim('r#0', 61_001, 60_000)).toBe('claimed');
    await l.release('r#0');
    expect(await l.claim('r#0', 61_002, 60_000)).toBe('claimed');
  });
});

describe('SqliteFifoQueue dead letters', () => {
  it('moves a message to the DLQ, with the reason, after maxReceiveCount receives', async () => {
    const clock = fakeClock();
    const db = openStateDatabase(':memory:');
    const dlq = new SqliteDeadLetters(db, 'q-dlq', clock.now);
    const q = new SqliteFifoQueue(db, 'q', { now: clock.now, visibilityMs: 1_000, maxReceiveCount: 2, deadLetters: dlq });
    q.push('poison', 'g', 'p');
    q.push('next', 'g', 'n');
    expect((await q.receive(0))[0]!.receiveCount).toBe(1);
    clock.advance(1_001);
    expect((await q.receive(0))[0]!.receiveCount).toBe(2);
    clock.advance(1_001);
    // The third receive parks the poison message and hands out the one behind it.
    expect((await q.receive(0))[0]!.body).toBe('next');
    expect(dlq.depth).toBe(1);
    expect(dlq.list()[0]).toMatchObject({ body: 'poison', groupId: 'g', reason: expect.stringMatching(/^MAX_RECEIVES: received 2 times/) });
  });
});

describe('the SQLite state file', () => {
  it('keeps queued and in-flight messages, sessions and dedupe keys across a restart', async () => {
    const path = join(tempDir('cf-sqlite-'), 'state.db');
    const before = openStateDatabase(path);
    const queues = new SqliteAgentQueues(before);
    await queues.send({
      v: PROTOCOL_VERSION,
      kind: 'message',
      id: 'e1',
      agentId: 'ray',
      sessionKey: 'agent:ray:main',
      ts: 1,
      text: 'queued while down',
      from: { channel: 'local' },
    });
    await queues.send({
      v: PROTOCOL_VERSION,
      kind: 'message',
      id: 'e2',
      agentId: 'ray',
      sessionKey: 'agent:ray:other',
      ts: 1,
      text: 'in flight at the crash',
      from: { channel: 'local' },
    });
    await queues.queue('ray').receive(0);
    await new SqliteSessionRegistry(before).put({ sessionKey: 'agent:ray:main', agentId: 'ray', target: { channel: 'local', chatId: 'ray' }, updatedAt: 1 });
    await new SqliteInboundDedupe(before).remember('tg.ray.1', Date.now() + 60_000);
    before.close();

    const after = openStateDatabase(path);
    const q = new SqliteAgentQueues(after).queue('ray');
    expect(q.depth).toBe(2);
    q.releaseInFlight();
    const texts = [(await q.receive(0))[0]!, (await q.receive(0))[0]!].map((m) => JSON.parse(m.body).text as string);
    expect(texts.sort()).toEqual(['in flight at the crash', 'queued while down']);
    expect((await new SqliteSessionRegistry(after).get('agent:ray:main'))?.agentId).toBe('ray');
    expect(await new SqliteInboundDedupe(after).seen('tg.ray.1')).toBe(true);
    expect(after.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('opens a state file written before sessions kept the blocked mark, and adds it in place', async () => {
    const path = join(tempDir('cf-sqlite-'), 'state.db');
    const old = new Database(path);
    old.exec('CREATE TABLE sessions (session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, target TEXT NOT NULL, updated_at INTEGER NOT NULL)');
    old.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?)').run('agent:ray:main', 'ray', JSON.stringify({ channel: 'local', chatId: 'ray' }), 1);
    old.pragma('user_version = 1');
    old.close();
    const db = openStateDatabase(path);
    const sessions = new SqliteSessionRegistry(db);
    expect(await sessions.get('agent:ray:main')).toEqual({
      sessionKey: 'agent:ray:main',
      agentId: 'ray',
      target: { channel: 'local', chatId: 'ray' },
      updatedAt: 1,
    });
    await sessions.put({ sessionKey: 'agent:ray:main', agentId: 'ray', target: { channel: 'local', chatId: 'ray' }, updatedAt: 2, blockedAt: 2 });
    expect((await sessions.get('agent:ray:main'))?.blockedAt).toBe(2);
    db.close();
  });
});
