// The openclaw bridge streaming a run's `chat` deltas as the native turn streams model text,
// against the fake gateway (test/support/fake-openclaw-gateway.ts, OpenClaw 2026.9.6's event
// shapes: each delta carries the whole text so far): drafts while it writes and then one
// reply; blocks and the reply carrying only the rest; a delta for another session, or after
// the final, never shown; the reply and a block never sent twice, a redelivery included.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { parseOutbound, type OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { AnswerJournal } from '../../runtime-image/src/openclaw/answer-journal.ts';
import { bridgeTurn, type BridgeDeps } from '../../runtime-image/src/openclaw/bridge-turn.ts';
import { loadOrCreateDeviceIdentity } from '../../runtime-image/src/openclaw/device-identity.ts';
import { ExternalGateway } from '../../runtime-image/src/openclaw/external-gateway.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import type { TurnRequest } from '../../runtime-image/src/turn/turn-request.ts';
import { startFakeGateway, type FakeChatRun, type FakeGateway } from '../support/fake-openclaw-gateway.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = 'gw-token-stream-0123456789abcdef';
const SECRET = 'sk-fran-own-secret-0123456789';
const SESSION = 'agent:fran:telegram:direct:42';

let gw: FakeGateway | undefined;
let conn: ExternalGateway | undefined;
afterEach(async () => {
  await conn?.stop();
  await gw?.close();
  conn = gw = undefined;
});

interface Bridge {
  deps: BridgeDeps;
  log: ReturnType<typeof memoryLogger>;
  sent: OutboundEnvelope[];
  /** Resolves once `n` envelopes of `kind` are on the outbox. */
  until(kind: OutboundEnvelope['kind'], n: number): Promise<void>;
}

async function connectedBridge(): Promise<Bridge> {
  gw = await startFakeGateway({ token: TOKEN });
  conn = new ExternalGateway({
    url: gw.url,
    token: TOKEN,
    tokenName: 'OPENCLAW_GATEWAY_TOKEN',
    howToSet: 'clawfleet secrets set OPENCLAW_GATEWAY_TOKEN --agent fran',
    device: loadOrCreateDeviceIdentity(join(tempDir('cf-device-'), 'k.pem')),
    clientVersion: 'test',
    log: memoryLogger(),
    onWarning: () => {},
  });
  gw.paired.add((conn as unknown as { opts: { device: { deviceId: string } } }).opts.device.deviceId);
  await conn.start();
  const sent: OutboundEnvelope[] = [];
  const waiters = new Set<() => void>();
  const c = conn;
  const log = memoryLogger();
  return {
    sent,
    log,
    until: (kind, n) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (sent.filter((e) => e.kind === kind).length < n) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    deps: {
      agentId: 'fran',
      // Every envelope must pass the protocol's own schema, as λ outbox would parse it.
      outbox: {
        send: async (e) => {
          sent.push(parseOutbound(JSON.parse(JSON.stringify(e))));
          for (const w of [...waiters]) w();
        },
      },
      clock: { now: () => Date.now() },
      log,
      journal: new AnswerJournal(tempDir('cf-bridge-stream-')),
      gateway: (signal) => c.connected(signal),
      turnTimeoutMs: 10_000,
      masker: secretMasker([SECRET]),
      external: { gatewayAgent: 'main' },
    },
  };
}

const request = (inboundId: string, stream: TurnRequest['stream']): TurnRequest => ({
  inboundId,
  sessionKey: SESSION,
  isolated: false,
  input: 'tell me',
  answer: { kind: 'reply', sessionKey: SESSION },
  quiet: ['NO_REPLY'],
  stream,
});

/** A `chat` delta as OpenClaw 2026.9.6 broadcasts it: the whole text so far in `message`, the new part in `deltaText`. */
const delta = (seq: number, sofar: string, previous: string) => ({
  seq,
  state: 'delta',
  deltaText: sofar.slice(previous.length),
  message: { role: 'assistant', content: [{ type: 'text', text: sofar }], timestamp: Date.now() },
});

/**
 * Writes `pieces` as deltas; after each, waits until the bridge has put one more envelope of
 * `kind` on the outbox when `paced` says so (the stream is as slow as its drafts, with no fixed sleep).
 */
async function write(run: FakeChatRun, pieces: string[], paced: ((i: number) => Promise<void>) | undefined): Promise<string> {
  let sofar = '';
  for (const [i, piece] of pieces.entries()) {
    const previous = sofar;
    sofar += piece;
    run.emit(delta(i + 1, sofar, previous));
    await paced?.(i);
  }
  return sofar;
}

const texts = (sent: OutboundEnvelope[], kind: OutboundEnvelope['kind']) => sent.filter((e) => e.kind === kind).map((e) => (e as { text: string }).text);

describe('the openclaw bridge streaming the gateway’s chat deltas', () => {
  it('partial: shows the answer growing in ≥ 3 drafts, masked, then sends one reply; nothing after it', async () => {
    const b = await connectedBridge();
    const answer = `The plan is simple and the key ${SECRET} stays hidden. First we pack the bags, then we water the plants, and at last we lock the door behind us.`;
    const pieces = answer.split(/(?<=\s)/).reduce<string[]>((acc, w, i) => (i % 4 === 0 ? acc.push(w) : (acc[acc.length - 1] += w), acc), []);
    let late: Promise<void> | undefined;
    gw!.onChat((run) => {
      void (async () => {
        // The first draft comes one interval after the text starts; then one per piece.
        const text = await write(run, pieces, (i) => (i < 3 ? b.until('draft', i + 1) : Promise.resolve()));
        run.finish(text);
        // A delta after the final (a slow broadcast): never a draft.
        late = new Promise((r) => setTimeout(r, 300)).then(() => run.emit(delta(99, `${text} LATE`, text)));
      })();
    });
    expect(await bridgeTurn(request('tg.1', { mode: 'partial', minIntervalMs: 250 }), b.deps, new AbortController().signal)).toBe('replied');
    await late;
    await new Promise((r) => setTimeout(r, 300)); // a draft timer the late delta could have started would have fired by now

    const drafts = b.sent.filter((e) => e.kind === 'draft');
    expect(drafts.length).toBeGreaterThanOrEqual(3);
    expect(texts(b.sent, 'reply')).toEqual([answer.replace(SECRET, '[redacted]')]);
    // Every draft before the reply, each a prefix of the answer as shown, none with the key or a piece of it.
    const replyAt = b.sent.findIndex((e) => e.kind === 'reply');
    expect(b.sent.findLastIndex((e) => e.kind === 'draft')).toBeLessThan(replyAt);
    for (const t of texts(b.sent, 'draft')) {
      expect(answer.replace(SECRET, '[redacted]').startsWith(t)).toBe(true);
      expect(t).not.toContain(SECRET.slice(0, 8));
      expect(t).not.toContain('LATE');
    }
    expect(drafts.map((d) => (d as { seq: number }).seq)).toEqual(drafts.map((_, i) => i + 1));
    expect(drafts.every((d) => d.id.startsWith('tg.1.draft.') && (d as { inReplyTo: string }).inReplyTo === 'tg.1')).toBe(true);
    expect(new Set(drafts.map((d) => d.id)).size).toBe(drafts.length);
    // As the native turn: a turn still working after 300 ms says so (the dashboard's turn events), before its answer.
    const statuses = b.sent.filter((e) => e.kind === 'status') as { turn: string; replied?: boolean }[];
    expect(statuses.map((st) => st.turn)).toEqual(['started', 'ended']);
    expect(b.sent.findIndex((e) => e.kind === 'status')).toBeLessThan(replyAt);
  });

  it('ignores deltas for another session and another run: only this run’s text is drafted', async () => {
    const b = await connectedBridge();
    gw!.onChat((run) => {
      void (async () => {
        run.emit({ ...delta(1, 'FORGED for another chat, a long text of many words', ''), sessionKey: 'agent:main:telegram:direct:999' });
        run.emit({ ...delta(1, 'OTHER run of this session, many words here', ''), runId: 'someone-else' });
        const text = await write(run, ['Only this ', 'run is ', 'drafted here ', 'and then ', 'answered.'], (i) =>
          i < 2 ? b.until('draft', i + 1) : Promise.resolve(),
        );
        run.finish(text);
      })();
    });
    expect(await bridgeTurn(request('tg.2', { mode: 'partial', minIntervalMs: 250 }), b.deps, new AbortController().signal)).toBe('replied');
    expect(texts(b.sent, 'draft').length).toBeGreaterThanOrEqual(2);
    for (const t of texts(b.sent, 'draft')) expect('Only this run is drafted here and then answered.'.startsWith(t)).toBe(true);
    expect(texts(b.sent, 'reply')).toEqual(['Only this run is drafted here and then answered.']);
  });

  it('block: sends each completed paragraph as a block while the run writes, the reply carrying only the rest; a redelivery re-sends that reply, no block again', async () => {
    const b = await connectedBridge();
    const paragraphs = ['First paragraph, long enough.\n\n', 'Second paragraph, also long.\n\n', 'The rest of it.'];
    gw!.onChat((run) => {
      void (async () => {
        // A block is sent once the next paragraph has begun: the first is waited for before the run goes on.
        const pieces = paragraphs.flatMap((p) => p.split(/(?<=\s)/));
        let sofar = '';
        for (const [i, piece] of pieces.entries()) {
          const previous = sofar;
          sofar += piece;
          run.emit(delta(i + 1, sofar, previous));
          if (sofar === `${paragraphs[0]!}Second `) await b.until('block', 1);
          // Blocks still queued when the run ends go in the reply instead: the second is waited for too.
          if (sofar.endsWith('\n\nThe ')) await b.until('block', 2);
        }
        run.finish(sofar);
      })();
    });
    const req = request('tg.3', { mode: 'block', minIntervalMs: 1000, block: { minChars: 10, maxChars: 800 } });
    expect(await bridgeTurn(req, b.deps, new AbortController().signal)).toBe('replied');
    expect(texts(b.sent, 'block')).toEqual(['First paragraph, long enough.', 'Second paragraph, also long.']);
    expect(b.sent.filter((e) => e.kind === 'block').map((e) => (e as { index: number }).index)).toEqual([1, 2]);
    const reply = b.sent.find((e) => e.kind === 'reply')!;
    expect(reply).toMatchObject({ id: 'tg.3.reply.0', text: 'The rest of it.', afterBlocks: 2 });
    expect(b.sent.findLastIndex((e) => e.kind === 'block')).toBeLessThan(b.sent.indexOf(reply));
    expect(b.sent.some((e) => e.kind === 'draft')).toBe(false);

    // Redelivered (the bridge died before deleting the message): the recorded reply again, byte-identical; no block, no new run.
    const before = b.sent.length;
    expect(await bridgeTurn(req, b.deps, new AbortController().signal)).toBe('resent');
    expect(b.sent.slice(before).map((e) => e.kind)).toEqual(['reply']);
    expect(JSON.stringify(b.sent.at(-1))).toBe(JSON.stringify(reply));
    const ids = b.sent.filter((e) => e.kind === 'block').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('block: a bridge gone mid-stream and given the message again rejoins the run; its blocks keep their ids and texts, and one reply says the rest', async () => {
    const b = await connectedBridge();
    const paragraphs = ['First paragraph, long enough.\n\n', 'Second paragraph, also long.\n\n', 'The rest of it.'];
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    let runs = 0;
    gw!.onChat((run) => {
      runs++;
      void (async () => {
        let sofar = '';
        for (const [i, piece] of paragraphs.flatMap((p) => p.split(/(?<=\s)/)).entries()) {
          const previous = sofar;
          sofar += piece;
          run.emit(delta(i + 1, sofar, previous));
          // The first block is out when the bridge goes; the run goes on in the gateway once the next bridge has joined it.
          if (sofar === `${paragraphs[0]!}Second `) await resumed;
          // The first block said again by the joined bridge, and the second: all three out before the run ends.
          if (sofar.endsWith('\n\nThe ')) await b.until('block', 3);
        }
        run.finish(sofar);
      })();
    });
    const req = request('tg.6', { mode: 'block', minIntervalMs: 1000, block: { minChars: 10, maxChars: 800 } });
    const gone = new AbortController();
    const first = bridgeTurn(req, b.deps, gone.signal);
    await b.until('block', 1);
    gone.abort();
    expect(await first).toBe('aborted');
    expect(b.sent.some((e) => e.kind === 'reply')).toBe(false);

    // Redelivered: the same key joins the run still going (an operator's gateway outlives the bridge).
    const second = bridgeTurn(req, b.deps, new AbortController().signal);
    await new Promise<void>((resolve) => {
      const t = setInterval(() => b.log.lines.some((l) => String(l.msg).startsWith('joined the run')) && (clearInterval(t), resolve()), 10);
    });
    resume();
    expect(await second).toBe('replied');
    expect(runs).toBe(1);
    const blocks = b.sent.filter((e) => e.kind === 'block') as { id: string; text: string }[];
    // The rejoined stream said the first block again under the same id (the outbox delivers an id once), never under another.
    const byId = new Map<string, Set<string>>();
    for (const blk of blocks) byId.set(blk.id, (byId.get(blk.id) ?? new Set()).add(blk.text));
    expect([...byId.values()].map((t) => [...t])).toEqual([['First paragraph, long enough.'], ['Second paragraph, also long.']]);
    expect(b.sent.filter((e) => e.kind === 'reply')).toEqual([expect.objectContaining({ id: 'tg.6.reply.0', text: 'The rest of it.', afterBlocks: 2 })]);
  });

  it('a run that writes NO_REPLY slowly shows no draft of it, sends no reply, and its ended status says none went out', async () => {
    const b = await connectedBridge();
    gw!.onChat((run) => {
      void (async () => {
        run.finish(await write(run, ['NO', '_RE', 'PLY'], () => new Promise((r) => setTimeout(r, 150))));
      })();
    });
    expect(await bridgeTurn(request('tg.7', { mode: 'partial', minIntervalMs: 250 }), b.deps, new AbortController().signal)).toBe('silent');
    expect(b.sent.filter((e) => e.kind !== 'status')).toEqual([]);
    expect(b.sent.find((e) => e.kind === 'status' && e.turn === 'ended')).toMatchObject({ replied: false });
  });

  it('sends no draft when the turn does not stream, and none for an answer to another agent', async () => {
    const b = await connectedBridge();
    gw!.onChat((run) => {
      void (async () => {
        run.finish(await write(run, ['Whole ', 'answer ', 'only ', 'here.'], () => new Promise((r) => setTimeout(r, 100))));
      })();
    });
    expect(await bridgeTurn(request('tg.4', undefined), b.deps, new AbortController().signal)).toBe('replied');
    const relay: TurnRequest = {
      ...request('tg.5', { mode: 'partial', minIntervalMs: 250 }),
      answer: { kind: 'agent_send', toAgentId: 'grif', sessionKey: SESSION, inReplyTo: 'req.1' },
    };
    expect(await bridgeTurn(relay, b.deps, new AbortController().signal)).toBe('replied');
    expect(b.sent.filter((e) => e.kind === 'draft' || e.kind === 'block')).toEqual([]);
    expect(b.sent.filter((e) => e.kind === 'reply' || e.kind === 'agent_send').map((e) => (e as { text: string }).text)).toEqual([
      'Whole answer only here.',
      'Whole answer only here.',
    ]);
  });
});
