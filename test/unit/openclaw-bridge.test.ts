// The openclaw kind's bridge turn against a scripted gateway client (no OpenClaw here; the
// real one is test/openclaw): one answer per inbound whatever happens to the gateway, the
// recorded answer re-sent byte-identical, a retry sent under a key of its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import type { OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { AnswerJournal } from '../../runtime-image/src/openclaw/answer-journal.ts';
import { bridgeTurn, type BridgeDeps } from '../../runtime-image/src/openclaw/bridge-turn.ts';
import { GatewayClosedError, type GatewayClient, type GatewayEvent } from '../../runtime-image/src/openclaw/gateway-client.ts';
import type { TurnRequest } from '../../runtime-image/src/turn-request.ts';

type Behaviour = 'answer' | 'die' | 'busy' | 'empty';

/** A gateway client whose chat.send runs do what `script` says, one entry per send. */
function scriptedGateway(script: Behaviour[], sends: { idempotencyKey: string; afterIdleChecks?: number }[], instance = 'i1'): GatewayClient {
  const listeners = new Set<(e: GatewayEvent) => void>();
  const history: string[] = [];
  const closers = new Set<(err: Error) => void>();
  return {
    instance,
    onEvent: (l: (e: GatewayEvent) => void) => (listeners.add(l), () => listeners.delete(l)),
    onClose: (l: (err: Error) => void) => (closers.add(l), () => closers.delete(l)),
    request: async (method: string, params: Record<string, unknown>) => {
      if (method === 'chat.history') {
        history.push(String(params.sessionKey));
        // Busy on the first look after a failure (OpenClaw recovering), idle on the next.
        return { sessionInfo: { hasActiveRun: history.length % 2 === 1 } };
      }
      if (method !== 'chat.send') return {};
      sends.push({ idempotencyKey: String(params.idempotencyKey), ...(history.length ? { afterIdleChecks: history.length } : {}) });
      const what = script.shift() ?? 'answer';
      const runId = `run-${sends.length}`;
      setTimeout(() => {
        if (what === 'die') for (const c of closers) c(new GatewayClosedError('code 1006'));
        else {
          const payload =
            what === 'empty'
              ? { runId, sessionKey: params.sessionKey, seq: 1, state: 'final' }
              : what === 'busy'
                ? {
                    runId,
                    sessionKey: params.sessionKey,
                    seq: 1,
                    state: 'error',
                    errorMessage: 'StateDatabaseCoordinatorContentionError: another OpenClaw process owns state-lifecycle',
                  }
                : {
                    runId,
                    sessionKey: params.sessionKey,
                    seq: 1,
                    state: 'final',
                    message: { role: 'assistant', content: [{ type: 'text', text: `answer to ${params.message}` }] },
                  };
          for (const l of listeners) l({ event: 'chat', payload });
        }
      }, 5);
      return { runId, status: 'started' };
    },
  } as unknown as GatewayClient;
}

const req: TurnRequest = {
  inboundId: 'tg.fran.7',
  sessionKey: 'agent:fran:main',
  isolated: false,
  input: 'hi',
  answer: { kind: 'reply', sessionKey: 'agent:fran:main' },
  quiet: ['NO_REPLY'],
};

function deps(clients: GatewayClient[]): { deps: BridgeDeps; sent: OutboundEnvelope[] } {
  const sent: OutboundEnvelope[] = [];
  let i = 0;
  return {
    sent,
    deps: {
      agentId: 'fran',
      outbox: { send: async (e) => void sent.push(e) },
      clock: { now: () => 1_000 },
      log: memoryLogger(),
      journal: new AnswerJournal(mkdtempSync(join(tmpdir(), 'cf-bridge-'))),
      // Each call after a failure is "the restarted gateway".
      gateway: async () => clients[Math.min(i++, clients.length - 1)]!,
      turnTimeoutMs: 10_000,
    },
  };
}

const replies = (sent: OutboundEnvelope[]) => sent.filter((e) => e.kind === 'reply');

describe('the openclaw bridge turn', () => {
  it('answers once with the reply id native uses, and re-sends the recorded answer, byte-identical, without asking again', async () => {
    const sends: { idempotencyKey: string }[] = [];
    const { deps: d, sent } = deps([scriptedGateway(['answer'], sends)]);
    expect(await bridgeTurn(req, d, new AbortController().signal)).toBe('replied');
    expect(await bridgeTurn(req, d, new AbortController().signal)).toBe('resent');
    expect(sends).toEqual([{ idempotencyKey: 'tg.fran.7:i1' }]);
    const [first, again] = replies(sent);
    expect(first).toMatchObject({ kind: 'reply', id: 'tg.fran.7.reply.0', inReplyTo: 'tg.fran.7', sessionKey: 'agent:fran:main', text: 'answer to hi' });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
  });

  it('asks the restarted gateway again when the gateway dies mid-run, under that gateway’s key, and answers once', async () => {
    const sends: { idempotencyKey: string }[] = [];
    const { deps: d, sent } = deps([scriptedGateway(['die'], sends, 'old'), scriptedGateway(['answer'], sends, 'new')]);
    expect(await bridgeTurn(req, d, new AbortController().signal)).toBe('replied');
    expect(sends.map((s) => s.idempotencyKey)).toEqual(['tg.fran.7:old', 'tg.fran.7:new:1']);
    expect(replies(sent)).toHaveLength(1);
  });

  it('asks again, under a key of its own, when the run fails because OpenClaw’s state is busy', async () => {
    const sends: { idempotencyKey: string }[] = [];
    const { deps: d, sent } = deps([scriptedGateway(['busy', 'answer'], sends)]);
    expect(await bridgeTurn(req, d, new AbortController().signal)).toBe('replied');
    expect(sends.map((s) => s.idempotencyKey)).toEqual(['tg.fran.7:i1', 'tg.fran.7:i1:1']);
    expect(replies(sent)).toHaveLength(1);
    expect(replies(sent)[0]).toMatchObject({ text: 'answer to hi' });
  });

  it('asks again once the session is idle when a run ends without text (OpenClaw recovering the dead gateway’s turn), and gives up after two', async () => {
    const sends: { idempotencyKey: string; afterIdleChecks?: number }[] = [];
    const { deps: d, sent } = deps([scriptedGateway(['empty', 'answer'], sends)]);
    expect(await bridgeTurn(req, d, new AbortController().signal)).toBe('replied');
    // The retry went out only after the session was seen busy, then idle.
    expect(sends).toEqual([{ idempotencyKey: 'tg.fran.7:i1' }, { idempotencyKey: 'tg.fran.7:i1:1', afterIdleChecks: 2 }]);
    expect(replies(sent)).toHaveLength(1);

    const never: { idempotencyKey: string }[] = [];
    const silent = deps([scriptedGateway(['empty', 'empty', 'empty', 'empty'], never)]);
    expect(await bridgeTurn({ ...req, inboundId: 'tg.fran.8' }, silent.deps, new AbortController().signal)).toBe('failed');
    expect(never).toHaveLength(3);
    expect(replies(silent.sent)[0]!.text).toContain('the agent returned no text');
  });
});
