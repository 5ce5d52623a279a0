// The turn loop with a scripted model: tool calls and their results, bad arguments,
// unknown tools, provider errors with retries and fallbacks, redelivery, sessions,
// every kind of inbound envelope, and compaction with its memory note.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { InMemoryFifoQueue } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../../shared/adapters/memory/in-memory-state.ts';
import type { InboundEnvelope, MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { FLUSH_PROMPT, SUMMARY_PROMPT } from '../../runtime-image/src/session/compaction.ts';
import { modelChain } from '../../runtime-image/src/model/model-chain.ts';
import { assistantMessage, type ModelClient, type ModelRequest, type ModelResult } from '../../runtime-image/src/model/model.ts';
import { defineTool, type AgentTool } from '../../runtime-image/src/tools/tool.ts';
import { fileTools } from '../../runtime-image/src/tools/file-tools.ts';
import { requestTools } from '../../runtime-image/src/tools/request-tools.ts';
import { giveUpTurn, runTurn } from '../../runtime-image/src/turn/turn.ts';
import { SHOW_WORK_AFTER_MS } from '../../runtime-image/src/turn/turn-answer.ts';
import { defaultTurnLimits, type TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { Worker, type WorkEnvelope } from '../../runtime-image/src/worker/worker.ts';
import { z } from 'zod';
import { WorkspaceAttemptLog } from '../../runtime-image/src/worker/attempt-log.ts';
import { franMessage, franTurnDeps } from '../support/fran-turn.ts';
import { lastUserText, recordingModel, type ScriptStep } from '../support/recording-model.ts';

/** A model that answers from a script (then echoes) and records what it was asked. */
const scripted = (...script: ScriptStep[]) => recordingModel(script, { after: (req) => ({ text: `echo: ${lastUserText(req.messages)}` }) });

const toolResults = (req: ModelRequest) => req.messages.filter((m) => m.role === 'toolResult');

const message = (n = 1, text = 'hello', sessionKey = 'agent:fran:main'): MessageEnvelope => franMessage(n, text, { sessionKey });

function setup(model: ModelClient, opts: { tools?: (ws: string) => AgentTool[]; limits?: Partial<TurnDeps['limits']> } = {}) {
  const { deps, outbox } = franTurnDeps(model, (workspace) => {
    const tools = opts.tools?.(workspace) ?? fileTools(workspace);
    return { clock: { now: () => Date.parse('2026-03-01T10:00:00Z') }, tools: () => tools, limits: { ...defaultTurnLimits, ...opts.limits } };
  });
  const { workspace } = deps;
  const sent = () => outbox.queue.bodies().map((b) => JSON.parse(b));
  const replies = () => sent().filter((e) => e.kind === 'reply');
  const turn = (e: WorkEnvelope, signal = new AbortController().signal) => runTurn(turnRequestFor(e), deps, signal);
  return { deps, sent, replies, workspace, turn };
}

describe('the agent loop', () => {
  it('runs a tool the model calls, gives it the result, and sends the final answer', async () => {
    const model = scripted({ calls: [{ name: 'read', args: { path: 'notes.txt' } }] }, { text: 'Your note says: buy milk' });
    const { turn, replies, workspace, deps } = setup(model);
    writeFileSync(join(workspace, 'notes.txt'), 'buy milk');
    expect(await turn(message())).toBe('replied');
    expect(toolResults(model.requests[1]!)).toEqual([
      expect.objectContaining({ toolName: 'read', isError: false, content: [{ type: 'text', text: 'buy milk' }] }),
    ]);
    expect(replies()).toEqual([expect.objectContaining({ id: 'tg.fran.1.reply.0', inReplyTo: 'tg.fran.1', text: 'Your note says: buy milk' })]);
    // The whole turn is recorded, tool call and result included.
    expect((await deps.transcripts.find('agent:fran:main', 'tg.fran.1'))?.messages?.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
  });

  it('offers the tools to the model with JSON Schemas of their arguments', async () => {
    const model = scripted({ text: 'hi' });
    await setup(model).turn(message());
    const read = model.requests[0]!.tools.find((t) => t.name === 'read');
    expect(read?.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
    expect(read?.parameters).not.toHaveProperty('$schema');
  });

  it('returns arguments that do not parse to the model as an error result, without running the tool', async () => {
    const model = scripted({ calls: [{ name: 'write', args: { path: 'x.txt' } }] }, { text: 'sorry' });
    const { turn, workspace } = setup(model);
    expect(await turn(message())).toBe('replied');
    expect(toolResults(model.requests[1]!)[0]).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/invalid arguments for write: content/) }],
    });
    expect(existsSync(join(workspace, 'x.txt'))).toBe(false);
  });

  it('answers a call to an unknown tool with an error result naming the tools there are', async () => {
    const model = scripted({ calls: [{ name: 'launch_rockets', args: {} }] }, { text: 'I cannot do that' });
    const { turn, replies } = setup(model);
    await turn(message());
    expect(toolResults(model.requests[1]!)[0]).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/unknown tool "launch_rockets"; available: read, write, edit, list/) }],
    });
    expect(replies()[0].text).toBe('I cannot do that');
  });

  it('turns a tool that throws or hangs into an error result, and the turn goes on', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'throws',
      schema: z.object({}),
      run: async () => {
        throw new Error('disk on fire');
      },
    });
    const hang = defineTool({
      name: 'hang',
      description: 'never returns',
      schema: z.object({}),
      run: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener('abort', () => r('late'))),
    });
    const model = scripted(
      {
        calls: [
          { name: 'boom', args: {} },
          { name: 'hang', args: {} },
        ],
      },
      { text: 'done anyway' },
    );
    const { turn } = setup(model, { tools: () => [boom, hang], limits: { toolTimeoutMs: 50 } });
    expect(await turn(message())).toBe('replied');
    expect(toolResults(model.requests[1]!).map((r) => [r.toolName, r.isError, (r.content[0] as { text: string }).text])).toEqual([
      ['boom', true, 'boom failed: disk on fire'],
      ['hang', true, 'hang did not finish within 0 s'],
    ]);
  });

  it('stops a model that keeps calling tools, and tells the user', async () => {
    const model = scripted(...Array.from({ length: 5 }, () => ({ calls: [{ name: 'list', args: {} }] })));
    const { turn, replies } = setup(model, { limits: { maxToolRounds: 3 } });
    expect(await turn(message())).toBe('failed');
    expect(replies()[0].text).toMatch(/kept calling tools after 3 rounds/);
  });

  it('ends a turn that runs past its timeout and tells the user', async () => {
    const model = scripted(
      (req) => new Promise((resolve) => req.signal?.addEventListener('abort', () => resolve({ ok: false, error: 'aborted', retriable: false }))),
    );
    const { turn, replies } = setup(model, { limits: { turnTimeoutMs: 50 } });
    expect(await turn(message())).toBe('failed');
    expect(replies()[0].text).toMatch(/took longer than 0 s/);
  });

  it('sends nothing when the model answers NO_REPLY, and records the turn', async () => {
    const { turn, sent, deps } = setup(scripted({ text: 'NO_REPLY' }));
    expect(await turn(message())).toBe('silent');
    expect(sent().filter((e) => e.kind === 'reply')).toEqual([]);
    expect(deps.transcripts.find('agent:fran:main', 'tg.fran.1')).toBeDefined();
  });

  it('reports a turn that takes a while as started and ended on the outbox, and a quick one as ended only', async () => {
    // A while: the model answers only once the started status is out, SHOW_WORK_AFTER_MS into the turn.
    const a = setup(
      scripted(async (): Promise<ModelResult> => {
        await vi.waitFor(() => expect(a.sent().some((e) => e.kind === 'status' && e.turn === 'started')).toBe(true), { timeout: 20_000, interval: 20 });
        return { ok: true, message: assistantMessage('slow/x', [{ type: 'text', text: 'hi' }]) };
      }),
    );
    await a.turn(message());
    expect(
      a
        .sent()
        .filter((e) => e.kind === 'status')
        .map((e) => [e.turn, e.inboundId]),
    ).toEqual([
      ['started', 'tg.fran.1'],
      ['ended', 'tg.fran.1'],
    ]);

    // Quick: no time passes on the (fake) timers during the turn, however busy the machine; a
    // started timer the turn failed to clear would fire when they are moved on after it.
    const b = setup(scripted({ text: 'hi' }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await b.turn(message());
      vi.advanceTimersByTime(SHOW_WORK_AFTER_MS * 10);
      await new Promise((r) => setImmediate(r));
    } finally {
      vi.useRealTimers();
    }
    expect(
      b
        .sent()
        .filter((e) => e.kind === 'status')
        .map((e) => e.turn),
    ).toEqual(['ended']);
  });

  it('reports where the turn’s time went: queue wait, model and tools', async () => {
    let t = Date.parse('2026-03-01T10:00:00Z');
    const model = scripted({ calls: [{ name: 'read', args: { path: 'n.txt' } }] }, { text: 'done' });
    const { deps, sent, workspace } = setup(model);
    writeFileSync(join(workspace, 'n.txt'), 'x');
    // Each clock reading advances 10 ms, so every phase takes measurable time.
    deps.clock = { now: () => (t += 10) };
    await runTurn(turnRequestFor({ ...message(), ts: Date.parse('2026-03-01T09:59:59Z') }), deps, new AbortController().signal);
    const ended = sent().find((e) => e.kind === 'status' && e.turn === 'ended');
    expect(ended.timing).toEqual({ queueWaitMs: expect.any(Number), modelMs: expect.any(Number), toolMs: expect.any(Number) });
    expect(ended.timing.queueWaitMs).toBeGreaterThanOrEqual(1_000);
    expect(ended.timing.toolMs).toBeGreaterThan(0);
  });
});

describe('model failures', () => {
  const noSleep = { sleep: async () => {} };
  const overloaded = { ok: false as const, error: '529 overloaded', retriable: true };

  it('retries a retriable provider error and answers', async () => {
    const primary = scripted(overloaded, { text: 'second time lucky' });
    const { turn, replies } = setup(modelChain([primary], undefined, noSleep));
    expect(await turn(message())).toBe('replied');
    expect(primary.requests).toHaveLength(2);
    expect(replies()[0].text).toBe('second time lucky');
  });

  it('backs off between retries, honouring retry-after up to the cap', async () => {
    const waits: number[] = [];
    const model = modelChain(
      [scripted({ ...overloaded, retryAfterSeconds: 2 }, overloaded, { text: 'ok' })],
      { attemptsPerModel: 3, baseDelayMs: 100, maxDelayMs: 1_000 },
      { sleep: async (ms) => void waits.push(ms), random: () => 1 },
    );
    await setup(model).turn(message());
    expect(waits).toEqual([1_000, 200]);
  });

  it('falls back to the next model when the primary keeps failing, and when it fails for good', async () => {
    const primary = scripted(overloaded, overloaded, overloaded);
    const fallback = scripted({ text: 'from the fallback' });
    const { turn, replies } = setup(modelChain([primary, fallback], undefined, noSleep));
    await turn(message());
    expect(primary.requests).toHaveLength(3);
    expect(replies()[0].text).toBe('from the fallback');

    const unauthorized = scripted({ ok: false, error: '401 invalid x-api-key', retriable: false });
    const second = scripted({ text: 'fallback again' });
    const s2 = setup(modelChain([unauthorized, second], undefined, noSleep));
    await s2.turn(message());
    expect(unauthorized.requests).toHaveLength(1);
    expect(s2.replies()[0].text).toBe('fallback again');
  });

  it('tells the user once every model has failed, with each reason', async () => {
    const { turn, replies } = setup(
      modelChain([scripted(overloaded, overloaded, overloaded), scripted({ ok: false, error: '401 bad key', retriable: false })], undefined, noSleep),
    );
    expect(await turn(message())).toBe('failed');
    expect(replies()).toEqual([
      expect.objectContaining({ text: expect.stringMatching(/could not answer that message \(scripted\/test: 529 overloaded; scripted\/test: 401 bad key\)/) }),
    ]);
  });
});

describe('sessions', () => {
  it('re-sends the recorded reply for a redelivered message instead of asking the model again', async () => {
    const model = scripted({ text: 'first answer' }, { text: 'a different answer' });
    const { deps, turn, replies } = setup(model);
    const sent: string[] = [];
    const inner = deps.outbox;
    deps.outbox = { send: async (e) => (e.kind === 'reply' && sent.push(JSON.stringify(e)), inner.send(e)) };
    await turn(message());
    expect(await turn(message())).toBe('resent');
    expect(model.requests).toHaveLength(1);
    // Same id and a byte-identical body, so the outbox queue's deduplication absorbs it.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(replies()).toEqual([expect.objectContaining({ text: 'first answer' })]);
  });

  it('gives the model the earlier turns of the session, tool calls included', async () => {
    const model = scripted({ calls: [{ name: 'list', args: {} }] }, { text: 'listed' });
    const { turn } = setup(model);
    await turn(message(1));
    await turn(message(2, 'again'));
    expect(model.requests[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'user']);
  });

  it('ignores a transcript line torn by a crash mid-write, and keeps every earlier turn', async () => {
    const { deps, workspace, turn } = setup(scripted());
    await turn(message(1));
    const file = join(workspace, 'sessions', readdirSync(join(workspace, 'sessions'))[0]!);
    appendFileSync(file, '{"inboundId":"tg.fran.2","ts":5,"inp');
    await turn(message(3));
    expect((await deps.transcripts.read('agent:fran:main')).map((t) => t.inboundId)).toEqual(['tg.fran.1', 'tg.fran.3']);
  });

  it('feeds the workspace files into the system prompt', async () => {
    const model = scripted({ text: 'hi' });
    const { turn, workspace } = setup(model);
    writeFileSync(join(workspace, 'SOUL.md'), 'You love puns.');
    writeFileSync(join(workspace, 'USER.md'), 'The user is Ann, in Lisbon.');
    await turn(message());
    expect(model.requests[0]!.systemPrompt).toMatch(/You are Fran[\s\S]*## SOUL.md\n\nYou love puns\.[\s\S]*## USER.md\n\nThe user is Ann/);
  });
});

describe('compaction', () => {
  it('flushes durable facts to memory/YYYY-MM-DD.md, then compacts the session into a summary', async () => {
    const requests: ModelRequest[] = [];
    const model: ModelClient = {
      label: 'scripted/test',
      contextWindow: 100_000,
      async complete(req) {
        requests.push(req);
        const text =
          req.systemPrompt === FLUSH_PROMPT
            ? '- The user has a cat called Tom.'
            : req.systemPrompt === SUMMARY_PROMPT
              ? 'Ann talked about her cat Tom.'
              : 'noted';
        return { ok: true, message: assistantMessage('scripted/test', [{ type: 'text', text }]) };
      },
    };
    const { turn, workspace, deps } = setup(model, { limits: { compactAtTokens: 1_500, keepTurnsOnCompaction: 1 } });
    for (let i = 1; i <= 6; i++) await turn(message(i, `message ${i}: ${'my cat is called Tom. '.repeat(20)}`));
    expect(requests.filter((r) => r.systemPrompt === FLUSH_PROMPT)).toHaveLength(1);

    const note = readFileSync(join(workspace, 'memory', '2026-03-01.md'), 'utf8');
    expect(note).toMatch(/before compacting session agent:fran:main\n\n- The user has a cat called Tom\./);
    // The turn after the compaction saw the summary instead of the old turns, and the newest turn verbatim.
    const flushAt = requests.findIndex((r) => r.systemPrompt === FLUSH_PROMPT);
    expect(requests[flushAt + 1]!.systemPrompt).toBe(SUMMARY_PROMPT);
    const after = requests[flushAt + 2]!;
    expect(after.systemPrompt).toMatch(/Earlier in this conversation \(summary\)\n\nAnn talked about her cat Tom\./);
    expect(after.messages.filter((m) => m.role === 'user')).toHaveLength(2);
    const compactions = (await deps.transcripts.entries('agent:fran:main')).filter((e) => e.kind === 'compaction');
    expect(compactions).toHaveLength(1);
    // Nothing is deleted: every turn is still in the file, for the record and for re-sends.
    expect(await deps.transcripts.read('agent:fran:main')).toHaveLength(6);
  });
});

describe('inbound envelopes other than messages', () => {
  const base = { v: PROTOCOL_VERSION, agentId: 'fran', ts: 1 };

  it('runs an isolated cron job in a fresh session and replies into the job’s session', async () => {
    const model = scripted();
    const { turn, replies } = setup(model);
    await turn(message(1));
    await turn({
      ...base,
      kind: 'cron',
      id: 'cron.daily.1',
      sessionKey: 'agent:fran:main',
      jobId: 'daily',
      sessionTarget: 'isolated',
      payload: { kind: 'agentTurn', message: 'Summarize the news' },
    });
    expect(model.requests[1]!.messages).toHaveLength(1);
    expect(replies().at(-1)).toMatchObject({ sessionKey: 'agent:fran:main', inReplyTo: 'cron.daily.1', text: 'echo: Summarize the news' });
  });

  it('runs a main-session cron system event with the session’s history, and stays quiet on HEARTBEAT_OK', async () => {
    const model = scripted({ text: 'hi' }, { text: 'HEARTBEAT_OK' });
    const { turn, replies } = setup(model);
    await turn(message(1));
    expect(
      await turn({
        ...base,
        kind: 'cron',
        id: 'cron.check.1',
        sessionKey: 'agent:fran:main',
        jobId: 'check',
        payload: { kind: 'systemEvent', text: 'check the inbox' },
      }),
    ).toBe('silent');
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(lastUserText(model.requests[1]!.messages)).toBe('[System event from cron job "check"] check the inbox');
    expect(replies()).toHaveLength(1);
  });

  it('asks with the heartbeat prompt for an empty system event', async () => {
    const model = scripted({ text: 'HEARTBEAT_OK' });
    await setup(model).turn({ ...base, kind: 'system_event', id: 'hb.1', sessionKey: 'agent:fran:main', text: '' });
    expect(lastUserText(model.requests[0]!.messages)).toMatch(/HEARTBEAT\.md/);
  });

  it('answers another agent’s message back to it with agent_send, and reports an answer to its own session', async () => {
    const { turn, sent } = setup(scripted({ text: 'Tuesday works' }, { text: 'Grif says Tuesday works.' }));
    await turn({
      ...base,
      kind: 'agent_message',
      id: 'a2a.1',
      sessionKey: 'agent:fran:a2a:grif',
      fromAgentId: 'grif',
      replyTo: { sessionKey: 'agent:grif:main' },
      text: 'Is Tuesday OK?',
      hops: 1,
    });
    expect(sent().filter((e) => e.kind === 'agent_send')).toEqual([
      expect.objectContaining({
        toAgentId: 'grif',
        sessionKey: 'agent:grif:main',
        inboundId: 'a2a.1',
        inReplyTo: 'a2a.1',
        text: 'Tuesday works',
        id: 'a2a.1.answer',
      }),
    ]);
    await turn({
      ...base,
      kind: 'agent_message',
      id: 'a2a.2',
      sessionKey: 'agent:fran:main',
      fromAgentId: 'grif',
      replyTo: { sessionKey: 'agent:grif:main' },
      text: 'Tuesday works',
      hops: 2,
      inReplyTo: 'a2a.0.answer',
    });
    expect(sent().filter((e) => e.kind === 'reply')).toEqual([expect.objectContaining({ sessionKey: 'agent:fran:main', text: 'Grif says Tuesday works.' })]);
  });
});

describe('requests a turn makes', () => {
  const sessionsSend = (ws: string) => [...fileTools(ws), ...requestTools('fran', { now: () => 5 })];

  it('name the turn’s inbound and the agent’s session, even from an isolated cron run (whose transcript is its own)', async () => {
    const model = scripted({ calls: [{ name: 'sessions_send', args: { agentId: 'grif', message: 'status?' } }] }, { text: 'asked' });
    const { turn, sent, deps } = setup(model, { tools: sessionsSend });
    const cron = {
      v: PROTOCOL_VERSION,
      kind: 'cron' as const,
      id: 'cron.fran.daily.1',
      agentId: 'fran',
      ts: 1,
      sessionKey: 'agent:fran:cron:daily',
      jobId: 'daily',
      sessionTarget: 'isolated' as const,
      payload: { kind: 'agentTurn' as const, message: 'check' },
    };
    await turn(cron);
    expect(sent().filter((e) => e.kind === 'agent_send')).toEqual([
      expect.objectContaining({ sessionKey: 'agent:fran:cron:daily', inboundId: 'cron.fran.daily.1', toAgentId: 'grif' }),
    ]);
    // The run's transcript is still its own.
    expect(deps.transcripts.find('cron:daily:cron.fran.daily.1', 'cron.fran.daily.1')).toBeDefined();
  });

  it('carry a relayed message’s id as their inbound, so the control plane can continue its conversation', async () => {
    const model = scripted({ calls: [{ name: 'sessions_send', args: { agentId: 'ray', message: 'forward' } }] }, { text: 'NO_REPLY' });
    const { turn, sent } = setup(model, { tools: sessionsSend });
    await turn({
      v: PROTOCOL_VERSION,
      kind: 'agent_message',
      id: 'am.grif.q1',
      agentId: 'fran',
      ts: 1,
      sessionKey: 'agent:fran:main',
      fromAgentId: 'grif',
      replyTo: { sessionKey: 'agent:grif:main' },
      text: 'forward this to ray',
      hops: 1,
    });
    expect(sent().filter((e) => e.kind === 'agent_send' && e.toAgentId === 'ray')).toEqual([
      expect.objectContaining({ sessionKey: 'agent:fran:main', inboundId: 'am.grif.q1' }),
    ]);
  });
});

describe('the worker', () => {
  function worker(model: ModelClient, opts: { maxConcurrent?: number; attempts?: boolean; showWorkAfterMs?: number } = {}) {
    const inbox = new InMemoryFifoQueue();
    const s = setup(model);
    const dlq = new InMemoryDeadLetters();
    const controls: string[] = [];
    const attempts = opts.attempts ? new WorkspaceAttemptLog(s.deps.workspace) : undefined;
    const w = new Worker({
      agentId: 'fran',
      inbox,
      outbox: s.deps.outbox,
      deadLetters: dlq,
      clock: s.deps.clock,
      log: s.deps.log,
      visibilitySeconds: 30,
      waitSeconds: 1,
      maxConcurrent: opts.maxConcurrent,
      showWorkAfterMs: opts.showWorkAfterMs,
      handle: (e, signal) => runTurn(turnRequestFor(e), s.deps, signal),
      control: async (a) => void controls.push(a),
      ...(attempts ? { attempts, maxReceiveCount: 5, giveUp: (e, n) => giveUpTurn(turnRequestFor(e), s.deps, n) } : {}),
    });
    const push = (e: InboundEnvelope) => inbox.push(JSON.stringify(e), 'sessionKey' in e ? e.sessionKey : 'control', e.id);
    return { w, inbox, push, dlq, controls, attempts, ...s };
  }

  /** How many receives on `inbox` are waiting now (the worker's slots polling), counted from here on. */
  function pollsWaiting(inbox: InMemoryFifoQueue): () => number {
    let waiting = 0;
    const receive = inbox.receive.bind(inbox);
    inbox.receive = async (...args: Parameters<typeof receive>) => {
      waiting++;
      try {
        return await receive(...args);
      } finally {
        waiting--;
      }
    };
    return () => waiting;
  }

  /** A model whose calls report how many ran at once, per user text. */
  function countingModel(ms = 150) {
    let running = 0;
    const overlaps: Record<string, number> = {};
    const model: ModelClient = {
      label: 'counting',
      contextWindow: 1e5,
      complete: async (req) => {
        const text = lastUserText(req.messages);
        running++;
        overlaps[text] = Math.max(overlaps[text] ?? 0, running);
        await new Promise((r) => setTimeout(r, ms));
        overlaps[text] = Math.max(overlaps[text] ?? 0, running);
        running--;
        return scripted({ text: `re: ${text}` }).complete(req);
      },
    };
    return { model, overlaps };
  }

  it('sets a message aside, telling the asker and asking no model, once two attempts at it died with the runtime', async () => {
    const model = scripted();
    const { w, push, attempts, replies, dlq } = worker(model, { attempts: true });
    await attempts!.start('tg.fran.1');
    await attempts!.start('tg.fran.1');
    push(message(1, 'poison'));
    w.start();
    await expect.poll(() => replies().length).toBe(1);
    await w.stop(1000);
    expect(replies()[0].text).toContain('working on it stopped this agent 2 times');
    expect(model.requests).toHaveLength(0);
    expect(dlq.letters.map((d) => d.reason)).toEqual([expect.stringMatching(/^GAVE_UP: 2 attempts died with the runtime/)]);
    expect(await attempts!.count('tg.fran.1')).toBe(0);
  });

  it('runs a message whose earlier attempt died alone — no other turn overlaps it — and clears its record once answered', async () => {
    const { model, overlaps } = countingModel();
    const { w, push, attempts, replies } = worker(model, { maxConcurrent: 4, attempts: true });
    await attempts!.start('tg.fran.1');
    push(message(1, 'suspect', 'agent:fran:dm:1'));
    for (const n of [2, 3, 4]) push(message(n, `plain ${n}`, `agent:fran:dm:${n}`));
    w.start();
    await expect.poll(() => replies().length).toBe(4);
    await w.stop(1000);
    expect(overlaps.suspect).toBe(1);
    // The others still ran side by side.
    expect(Math.max(overlaps['plain 2']!, overlaps['plain 3']!, overlaps['plain 4']!)).toBeGreaterThan(1);
    for (const n of [1, 2, 3, 4]) expect(await attempts!.count(`tg.fran.${n}`)).toBe(0);
  });

  it('does not count an attempt a drain stopped: it is taken back with the message released', async () => {
    const slow: ModelClient = {
      label: 'slow',
      contextWindow: 1e5,
      complete: (req) => new Promise((resolve) => req.signal?.addEventListener('abort', () => resolve({ ok: false, error: 'aborted', retriable: false }))),
    };
    const { w, inbox, push, attempts } = worker(slow, { attempts: true });
    await attempts!.start('tg.fran.1');
    push(message(1, 'long job'));
    w.start();
    await expect.poll(async () => attempts!.count('tg.fran.1')).toBe(2);
    await w.stop(50);
    expect(await attempts!.count('tg.fran.1')).toBe(1);
    expect(inbox.depth).toBe(1);
  });

  it('deletes a message only after its reply is on the outbox', async () => {
    const { w, inbox, push, replies } = worker(scripted());
    push(message());
    w.start();
    await expect.poll(() => replies().length).toBe(1);
    await expect.poll(() => inbox.depth).toBe(0);
    await w.stop(1000);
  });

  it('parks an envelope it cannot read in the DLQ with the reason', async () => {
    const { w, inbox, dlq } = worker(scripted());
    inbox.push(`{"v":${PROTOCOL_VERSION},"kind":"message"}`, 'g', 'bad-1');
    inbox.push(JSON.stringify({ ...message(), agentId: 'grif' }), 'g2', 'bad-2');
    w.start();
    await expect.poll(() => dlq.letters.length).toBe(2);
    expect(dlq.letters.map((l) => l.reason)).toEqual([expect.stringMatching(/^ENVELOPE_INVALID/), expect.stringMatching(/^AGENT_MISMATCH/)]);
    expect(inbox.depth).toBe(0);
    await w.stop(1000);
  });

  it('runs different sessions in parallel and one session’s turns one at a time', async () => {
    const running: string[] = [];
    let peak = 0;
    let open!: () => void;
    const gate = { promise: new Promise<void>((r) => (open = r)), resolve: () => open() };
    const model: ModelClient = {
      label: 'slow',
      contextWindow: 1e5,
      async complete(req) {
        const text = lastUserText(req.messages);
        running.push(text);
        peak = Math.max(peak, running.length);
        await gate.promise;
        running.splice(running.indexOf(text), 1);
        return { ok: true, message: assistantMessage('slow/x', [{ type: 'text', text: `done ${text}` }]) };
      },
    };
    const { w, push, replies } = worker(model, { maxConcurrent: 4 });
    push(message(1, 'a1', 'agent:fran:a'));
    push(message(2, 'a2', 'agent:fran:a'));
    push(message(3, 'b1', 'agent:fran:b'));
    push(message(4, 'c1', 'agent:fran:c'));
    w.start();
    await expect.poll(() => running.length).toBe(3);
    expect(running.sort()).toEqual(['a1', 'b1', 'c1']);
    gate.resolve();
    await expect.poll(() => replies().length).toBe(4);
    expect(peak).toBe(3);
    const order = replies().map((r) => r.text);
    expect(order.indexOf('done a1')).toBeLessThan(order.indexOf('done a2'));
    await w.stop(1000);
  });

  it('shows "typing…" for a user message whose turn takes a while, and not for one answered at once', async () => {
    // "At once" is within 5 s here, not 300 ms: a generous bound, so a busy machine cannot make the quick turn slow.
    const showWorkAfterMs = 5_000;
    const typing = () =>
      sent()
        .filter((e) => e.kind === 'typing')
        .map((e) => [e.sessionKey, e.inboundId]);
    const slow: ModelClient = {
      label: 'slow',
      contextWindow: 1e5,
      async complete(req) {
        // A while: answered only once "typing…" is out for it.
        if (lastUserText(req.messages) === 'slow')
          await vi.waitFor(() => expect(typing()).toContainEqual(['agent:fran:b', 'tg.fran.2']), { timeout: 20_000, interval: 20 });
        return { ok: true, message: assistantMessage('slow/x', [{ type: 'text', text: 'ok' }]) };
      },
    };
    const { w, push, replies, sent } = worker(slow, { showWorkAfterMs });
    w.start();
    push(message(1, 'quick', 'agent:fran:a'));
    await expect.poll(() => replies().length).toBe(1);
    push(message(2, 'slow', 'agent:fran:b'));
    await expect.poll(() => replies().length).toBe(2);
    // The quick turn's timer, had it been left running, fired before the slow one's (it started first).
    expect(typing()).toEqual([['agent:fran:b', 'tg.fran.2']]);
    await w.stop(1000);
  }, 60_000);

  it('keeps a long poll waiting for every free session slot, so a second session never waits for a receive round trip', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const model: ModelClient = {
      label: 'gated',
      contextWindow: 1e5,
      async complete() {
        await gate;
        return { ok: true, message: assistantMessage('gated/x', [{ type: 'text', text: 'done' }]) };
      },
    };
    const { w, inbox, push, replies } = worker(model, { maxConcurrent: 3 });
    const polling = pollsWaiting(inbox);
    w.start();
    await expect.poll(polling).toBe(3);
    push(message(1, 'a1', 'agent:fran:a'));
    await expect.poll(() => w.busy).toBe(1);
    await expect.poll(polling).toBe(2);
    open();
    await expect.poll(() => replies().length).toBe(1);
    await expect.poll(polling).toBe(3);
    await w.stop(1000);
  });

  it('on stop, a message that lands while the slots’ polls still wait is received once and released once', async () => {
    const { w, inbox, push, replies } = worker(scripted(), { maxConcurrent: 4 });
    const polling = pollsWaiting(inbox);
    w.start();
    await expect.poll(polling).toBe(4); // every slot is waiting in its poll
    const stopped = w.stop(1000);
    push(message(5, 'arrived during the stop'));
    await stopped;
    expect(replies()).toEqual([]);
    // One receive spent by the stopping worker (a release that woke the other polls would
    // have spent one per slot), and this one: the next runtime sees it as a second try.
    expect((await inbox.receive(0))[0]!.receiveCount).toBe(2);
  });

  it('on stop, releases a turn that cannot finish within the drain time, unanswered and not deleted', async () => {
    const slow: ModelClient = {
      label: 'slow',
      contextWindow: 1e5,
      complete: (req) => new Promise((resolve) => req.signal?.addEventListener('abort', () => resolve({ ok: false, error: 'aborted', retriable: false }))),
    };
    const { w, inbox, push, replies } = worker(slow);
    push(message());
    w.start();
    // The worker has it (a receive of our own here would take it from the worker).
    await expect.poll(() => w.busy).toBe(1);
    await w.stop(50);
    expect(replies()).toEqual([]);
    expect(inbox.depth).toBe(1);
    expect(await inbox.receive(0)).toHaveLength(1);
  });

  it('acts on control envelopes: reload is passed on; drain stops taking work', async () => {
    const { w, push, inbox, controls, replies } = worker(scripted());
    const polling = pollsWaiting(inbox);
    push({ v: PROTOCOL_VERSION, kind: 'control', id: 'ctl.1', agentId: 'fran', ts: 1, action: 'reload' });
    w.start();
    await expect.poll(() => controls).toEqual(['reload']);
    push({ v: PROTOCOL_VERSION, kind: 'control', id: 'ctl.2', agentId: 'fran', ts: 1, action: 'drain' });
    await expect.poll(() => controls).toEqual(['reload', 'drain']);
    push(message(9));
    // Nothing takes it, however long one waits: once drained, the poll that was waiting ends and none follows.
    await expect.poll(polling).toBe(0);
    expect(replies()).toEqual([]);
    expect(inbox.depth).toBe(1);
    await w.stop(100);
  });
});
