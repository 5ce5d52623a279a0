// λ outbox's batches (shared/control/outbox-batch.ts) over in-memory adapters: partial batch
// failures, a session's replies kept in order behind a failure, and Telegram's retry_after
// honoured through the DelayedRetry port, with no Telegram or SQS code in the handler.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentRegistry } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemoryInboundOrigins, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import {
  FAILED_RETRY_BASE_SECONDS,
  FAILED_RETRY_FACTOR,
  processOutboxBatch,
  type OutboxBatchDeps,
  type OutboxBatchRecord,
} from '../../shared/control/outbox-batch.ts';
import { memoryLogger } from '../../shared/log.ts';
import { RetryLaterError, type ChannelTarget, type ReceivedRecord } from '../../shared/ports.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const OUTBOX = 'arn:aws:sqs:us-east-1:000000000000:demo-outbox-fran.fifo';
const ann: ChannelTarget = { channel: 'telegram', accountId: 'fran', chatId: '4242' };

function setup(opts: { refuse?: (text: string) => Error | undefined; retryFails?: boolean } = {}) {
  const sent: string[] = [];
  const retries: { record: ReceivedRecord; seconds: number }[] = [];
  const origins = new InMemoryInboundOrigins(() => 5_000);
  for (const n of [1, 2, 3])
    void origins.put({
      id: `tg.fran.${n}`,
      agentId: 'fran',
      sessionKey: `agent:fran:s${n === 3 ? 'b' : 'a'}`,
      target: ann,
      createdAt: 1,
      expiresAt: 1_000_000,
    });
  const deps: OutboxBatchDeps & { log: ReturnType<typeof memoryLogger> } = {
    config: loadConfigFile('clawfleet.json'),
    origins,
    sessions: new InMemorySessionRegistry(),
    ledger: new InMemoryDeliveryLedger(),
    deadLetters: () => new InMemoryDeadLetters(),
    channel: async () => ({
      maxTextLength: 4096,
      async sendText(_target, text) {
        const refusal = opts.refuse?.(text);
        if (refusal) throw refusal;
        sent.push(text);
      },
      sendTyping: async () => {},
    }),
    registry: new InMemoryAgentRegistry(),
    delayedRetry: {
      async retryAfter(record, seconds) {
        if (opts.retryFails) throw new Error('visibility change refused');
        retries.push({ record, seconds });
      },
    },
    clock: { now: () => 5_000 },
    log: memoryLogger(),
  };
  return { deps, sent, retries };
}

const reply = (n: number, session: string, text: string): OutboxBatchRecord => ({
  source: OUTBOX,
  messageId: `m${n}`,
  receipt: `receipt-${n}`,
  group: session,
  body: JSON.stringify({
    v: PROTOCOL_VERSION,
    kind: 'reply',
    id: `tg.fran.${n}.reply.0`,
    agentId: 'fran',
    sessionKey: session,
    inReplyTo: `tg.fran.${n}`,
    ts: 1,
    text,
  }),
});

describe('an outbox batch', () => {
  it('hides a record Telegram refused with 429 for its retry_after, and fails the rest of its session behind it', async () => {
    const { deps, sent, retries } = setup({ refuse: (t) => (t === 'first' ? new RetryLaterError(7, 'Too Many Requests: retry after 7') : undefined) });
    const failed = await processOutboxBatch(
      [reply(1, 'agent:fran:sa', 'first'), reply(2, 'agent:fran:sa', 'second'), reply(3, 'agent:fran:sb', 'other chat')],
      deps,
    );
    // The second reply of the same session waits behind the first; the other session goes on.
    expect(failed).toEqual(['m1', 'm2']);
    expect(sent).toEqual(['other chat']);
    // The one behind it is hidden as long, so it follows the first rather than the queue's visibility timeout.
    expect(retries).toEqual([
      { record: { source: OUTBOX, receipt: 'receipt-1' }, seconds: 7 },
      { record: { source: OUTBOX, receipt: 'receipt-2' }, seconds: 7 },
    ]);
    expect(deps.log.lines.find((l) => l.messageId === 'm1')).toMatchObject({
      level: 'warn',
      msg: 'outbox record failed; it will be retried',
      errorName: 'RetryLaterError',
    });
  });

  it('hides a record that failed for another reason for a backoff by its receive count (not the queue’s minutes-long visibility timeout), and logs it as an error', async () => {
    const { deps, retries } = setup({ refuse: () => new Error('socket hang up') });
    expect(await processOutboxBatch([reply(1, 'agent:fran:sa', 'x')], deps)).toEqual(['m1']);
    expect(await processOutboxBatch([{ ...reply(1, 'agent:fran:sa', 'x'), receiveCount: 3 }], deps)).toEqual(['m1']);
    expect(await processOutboxBatch([{ ...reply(1, 'agent:fran:sa', 'x'), receiveCount: 40 }], deps)).toEqual(['m1']);
    expect(retries.map((r) => r.seconds)).toEqual([FAILED_RETRY_BASE_SECONDS, FAILED_RETRY_BASE_SECONDS * FAILED_RETRY_FACTOR ** 2, 600]);
    expect(deps.log.lines.find((l) => l.messageId === 'm1')).toMatchObject({
      level: 'error',
      error: 'socket hang up',
      retryInSeconds: FAILED_RETRY_BASE_SECONDS,
    });
  });

  it('still fails the record when its retry cannot be delayed, leaving it to the queue’s visibility timeout', async () => {
    const { deps } = setup({ refuse: () => new RetryLaterError(3, 'slow down'), retryFails: true });
    expect(await processOutboxBatch([reply(1, 'agent:fran:sa', 'x')], deps)).toEqual(['m1']);
    expect(deps.log.lines.some((l) => l.msg === 'could not delay the retry; the queue visibility timeout applies' && l.messageId === 'm1')).toBe(true);
  });

  it('reports nothing when every record is done with, a refused one included (it went to the DLQ)', async () => {
    const { deps, sent } = setup();
    const forged = {
      ...reply(1, 'agent:fran:sa', 'x'),
      body: JSON.stringify({
        v: PROTOCOL_VERSION,
        kind: 'reply',
        id: 'r',
        agentId: 'grif',
        sessionKey: 'agent:fran:sa',
        inReplyTo: 'tg.fran.1',
        ts: 1,
        text: 'x',
      }),
    };
    expect(await processOutboxBatch([forged, reply(2, 'agent:fran:sa', 'fine')], deps)).toEqual([]);
    expect(sent).toEqual(['fine']);
  });
});
