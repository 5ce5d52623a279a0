import { appendFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../../shared/adapters/memory/in-memory-state.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import type { ModelClient, ModelResult } from '../../runtime-image/src/model.ts';
import { TranscriptStore } from '../../runtime-image/src/transcript.ts';
import { runTurn, type TurnDeps } from '../../runtime-image/src/turn.ts';
import { Worker } from '../../runtime-image/src/worker.ts';

/** A model that answers from a script and counts its calls. */
function scriptedModel(...script: (ModelResult | ((input: string) => Promise<ModelResult>))[]): ModelClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    label: 'scripted/test',
    calls,
    async complete(req) {
      calls.push(req.input);
      const next = script.shift() ?? { ok: true, text: `echo: ${req.input}` };
      return typeof next === 'function' ? next(req.input) : next;
    },
  };
}

const message = (n = 1, text = 'hello'): MessageEnvelope => ({
  v: 1, kind: 'message', id: `tg.fran.${n}`, agentId: 'fran', sessionKey: 'agent:fran:main', ts: 1, text, from: { channel: 'telegram', accountId: 'fran' },
});

function turnDeps(model: ModelClient, workspace = mkdtempSync(join(tmpdir(), 'cf-ws-'))) {
  const outbox = new InMemoryOutbox();
  const deps: TurnDeps = {
    agentId: 'fran', transcripts: new TranscriptStore(workspace), model, outbox, clock: { now: () => 10 },
    log: memoryLogger(), systemPrompt: 'test', maxAttempts: 3, historyTurns: 10,
  };
  const replies = () => outbox.queue.bodies().map((b) => JSON.parse(b)).filter((e) => e.kind === 'reply');
  return { deps, replies, workspace };
}

const live = new AbortController().signal;

describe('a turn', () => {
  it('answers with the model and records the turn under its inbound id', async () => {
    const { deps, replies } = turnDeps(scriptedModel({ ok: true, text: 'Hi Ann' }));
    expect(await runTurn(message(), 1, deps, live)).toBe('replied');
    expect(replies()).toEqual([expect.objectContaining({ id: 'tg.fran.1.reply.0', inReplyTo: 'tg.fran.1', text: 'Hi Ann', sessionKey: 'agent:fran:main' })]);
    expect(deps.transcripts.find('agent:fran:main', 'tg.fran.1')).toMatchObject({ input: 'hello', reply: 'Hi Ann' });
  });

  it('re-sends the recorded reply for a redelivered message instead of asking the model again', async () => {
    const model = scriptedModel({ ok: true, text: 'first answer' }, { ok: true, text: 'a different answer' });
    const { deps, replies } = turnDeps(model);
    const sent: string[] = [];
    const inner = deps.outbox;
    deps.outbox = { send: async (e) => (sent.push(JSON.stringify(e)), inner.send(e)) };
    await runTurn(message(), 1, deps, live);
    expect(await runTurn(message(), 2, deps, live)).toBe('resent');
    expect(model.calls).toHaveLength(1);
    // Same id and a byte-identical body, so the outbox queue's deduplication absorbs it.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(replies()).toEqual([expect.objectContaining({ text: 'first answer' })]);
  });

  it('gives the model the earlier turns of the session', async () => {
    const seen: number[] = [];
    const model: ModelClient = { label: 'x', complete: async (req) => (seen.push(req.history.length), { ok: true, text: 'ok' }) };
    const { deps } = turnDeps(model);
    await runTurn(message(1), 1, deps, live);
    await runTurn(message(2), 1, deps, live);
    expect(seen).toEqual([0, 2]);
  });

  it('asks for a retry when the model fails, and tells the user once attempts run out', async () => {
    const failure: ModelResult = { ok: false, error: '503 upstream overloaded', retriable: true };
    const { deps, replies } = turnDeps(scriptedModel(failure, failure, failure));
    expect(await runTurn(message(), 1, deps, live)).toBe('retry');
    expect(await runTurn(message(), 2, deps, live)).toBe('retry');
    expect(await runTurn(message(), 3, deps, live)).toBe('failed');
    expect(replies()).toEqual([expect.objectContaining({ text: expect.stringContaining('could not answer that message (503 upstream overloaded)') })]);
  });

  it('ignores a transcript line torn by a crash mid-write, and keeps every earlier turn', async () => {
    const { deps, workspace } = turnDeps(scriptedModel());
    await runTurn(message(1), 1, deps, live);
    const file = join(workspace, 'sessions', readdirSync(join(workspace, 'sessions'))[0]!);
    appendFileSync(file, '{"inboundId":"tg.fran.2","ts":5,"inp');
    await runTurn(message(3), 1, deps, live);
    expect(deps.transcripts.read('agent:fran:main').map((t) => t.inboundId)).toEqual(['tg.fran.1', 'tg.fran.3']);
  });
});

describe('the worker', () => {
  function worker(model: ModelClient) {
    const inbox = new InMemoryFifoQueue();
    const { deps, replies } = turnDeps(model);
    const dlq = new InMemoryDeadLetters();
    const w = new Worker({
      agentId: 'fran', inbox, outbox: deps.outbox, deadLetters: dlq, clock: deps.clock, log: deps.log,
      visibilitySeconds: 30, waitSeconds: 1,
      runTurn: (m, attempt, signal) => runTurn(m, attempt, deps, signal),
    });
    return { w, inbox, replies, dlq };
  }

  it('deletes a message only after its reply is on the outbox', async () => {
    const { w, inbox, replies } = worker(scriptedModel());
    inbox.push(JSON.stringify(message()), 'agent:fran:main', 'tg.fran.1');
    w.start();
    await expect.poll(() => replies().length).toBe(1);
    await expect.poll(() => inbox.depth).toBe(0);
    await w.stop(1000);
  });

  it('parks an envelope it cannot read in the DLQ with the reason', async () => {
    const { w, inbox, dlq } = worker(scriptedModel());
    inbox.push('{"v":1,"kind":"message"}', 'g', 'bad-1');
    inbox.push(JSON.stringify({ ...message(), agentId: 'grif' }), 'g2', 'bad-2');
    w.start();
    await expect.poll(() => dlq.letters.length).toBe(2);
    expect(dlq.letters.map((l) => l.reason)).toEqual([expect.stringMatching(/^ENVELOPE_INVALID/), expect.stringMatching(/^AGENT_MISMATCH/)]);
    expect(inbox.depth).toBe(0);
    await w.stop(1000);
  });

  it('on stop, releases a turn that cannot finish within the drain time, unanswered and not deleted', async () => {
    const slow: ModelClient = {
      label: 'slow',
      complete: (req) => new Promise((resolve) => req.signal?.addEventListener('abort', () => resolve({ ok: false, error: 'aborted', retriable: false }))),
    };
    const { w, inbox, replies } = worker(slow);
    inbox.push(JSON.stringify(message()), 'agent:fran:main', 'tg.fran.1');
    w.start();
    await expect.poll(async () => (await inbox.receive(0)).length === 0 && inbox.depth === 1).toBe(true);
    await w.stop(50);
    expect(replies()).toEqual([]);
    expect(inbox.depth).toBe(1);
    expect(await inbox.receive(0)).toHaveLength(1);
  });
});
