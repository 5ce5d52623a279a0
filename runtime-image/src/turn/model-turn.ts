// A turn that asks the model, in its steps: what it is asked (the input with the users'
// reactions and attachments), what it is told (the system prompt, the tools), the ask
// (compaction, then the agent loop, its text streamed), what the answer is recorded as, and
// the record sent with the turn's status. turn.ts decides that a turn is one of these.
import type { ImageContent, Message } from '@mariozechner/pi-ai';
import { processRedactor, type Logger } from '../../../shared/log.ts';
import type { Buttons } from '../../../shared/protocol/envelopes.ts';
import { runAgentLoop, type LoopResult } from './agent-loop.ts';
import { compactIfNeeded, historyMessages } from '../session/compaction.ts';
import { derivedId } from './envelope-ids.ts';
import { mediaInput } from '../media/media-input.ts';
import type { CallContext, ModelClient } from '../model/model.ts';
import { REACTIONS_RULE, withNotes } from '../framing/reaction-note.ts';
import { sessionStats } from '../session/session-stats.ts';
import { buttonsTool } from '../tools/buttons-tool.ts';
import type { AgentTool } from '../tools/tool.ts';
import { historyOf, type SessionHistory, type SessionRead } from '../session/transcript-store.ts';
import type { TurnRecord } from '../../../shared/workspace/transcript-entry.ts';
import { endedTurn, sendAnswer, sendStatus, SHOW_WORK_AFTER_MS, type TurnOutcome } from './turn-answer.ts';
import { sessionModel } from './turn-commands.ts';
import type { TurnDeps } from './turn-deps.ts';
import type { TurnRequest } from './turn-request.ts';
import { startTurnStream, type TurnStream } from '../stream/turn-stream.ts';
import { buildSystemPrompt, readBootstrap } from '../workspace/bootstrap.ts';

/** The answer to a turn that a /stop cancelled. */
export const STOPPED_TEXT = '⏹ Stopped.';

/** What the model is asked this turn. */
interface TurnInput {
  /** The user-role text: the reactions since the last turn, a line per attachment, the message. */
  text: string;
  images: ImageContent[];
  /** Voice messages heard, for a reply that quotes them first (tools.media.audio.echoTranscript). */
  heard: string[];
  situation: string | undefined;
}

/** What the ask came to, and what the turn's stats and timing are worked out from. */
interface Asked {
  result: LoopResult;
  /** The history the loop built on (compacted, if it had to be). */
  history: SessionHistory;
  systemPrompt: string;
  toolChars: number;
  /** When the loop started, and how long its tools took. */
  started: number;
  toolMs: number;
}

/** What the model is told besides the input: the system prompt over a history, and the tools' schemas' size. */
interface TurnPrompt {
  over(history: SessionHistory): string;
  /** The tools' schemas, sent with every request: part of the context, as the prompt is. */
  toolChars: number;
}

/**
 * `signal` is shutdown (the message is released for the next runtime); `cancel` is a /stop
 * for this session (the turn ends answered "stopped", and its message is done with).
 */
export async function modelTurn(
  req: TurnRequest,
  session: SessionRead,
  deps: TurnDeps,
  log: Logger,
  signal: AbortSignal,
  cancel: AbortSignal,
): Promise<TurnOutcome> {
  // Status is information for the control plane: never waited on, never a reason to fail,
  // and sent only for a turn still working after SHOW_WORK_AFTER_MS.
  const startedStatus = setTimeout(() => void sendStatus(req, { ...deps, log }, 'started'), SHOW_WORK_AFTER_MS);
  const timeout = AbortSignal.timeout(deps.limits.turnTimeoutMs);
  const turnSignal = AbortSignal.any([signal, timeout, cancel]);
  const history: SessionHistory = req.isolated ? { summary: undefined, turns: [] } : session.history;
  // The session's /model choice, if it made one (and it is still configured).
  const model = sessionModel(history, deps).chosen ? deps.models!.forRef(history.model!) : deps.model;
  const input = await turnInput(req, history, model, deps, turnSignal);
  // Draft and block ids must differ between attempts of one turn (FIFO deduplication would drop a redone turn's).
  const attempt = deps.clock.now().toString(36);
  // Each model call of this attempt, named for its usage report (#31): a redone turn's calls are new calls, and counted as such.
  let calls = 0;
  const call = { inboundId: req.inboundId, sessionKey: req.answer.sessionKey, nextCallId: () => derivedId(req.inboundId, `usage.${attempt}.${++calls}`) };
  // Spoken replies (#31): decided now, since an answer to be spoken goes whole (its voice says it all).
  const speak = deps.speech?.wanted(req, history) ?? false;
  // A quoted transcript leads the reply, so an answer that quotes one goes whole: blocks sent
  // before the quote would put it after them, and the reply would then say them again.
  const stream = startTurnStream(req, { ...deps, log }, { drafts: attempt, blocks: attempt }, { noBlocks: input.heard.length > 0 || speak });
  let buttons: Buttons | undefined;
  const tools = req.buttons && req.answer.kind === 'reply' ? [...deps.tools(), buttonsTool((b) => (buttons = b))] : deps.tools();
  const prompt = await systemPromptFor(req, deps, tools, input.situation, log);
  let asked: Asked;
  try {
    asked = await askModel(req, { history, model, input, tools, prompt, stream, call }, deps, log, turnSignal);
  } finally {
    // From here on the answer is going out: a started status would only trail it, and a draft must not.
    clearTimeout(startedStatus);
    await stream.close();
  }
  const loopMs = deps.clock.now() - asked.started;
  // Where the turn's time went, for the dashboard: the model is the loop minus its tools.
  const timing = {
    ...(req.enqueuedAt !== undefined ? { queueWaitMs: Math.max(0, Math.round(asked.started - req.enqueuedAt)) } : {}),
    modelMs: Math.max(0, Math.round(loopMs - asked.toolMs)),
    toolMs: Math.round(asked.toolMs),
  };
  if (signal.aborted) return 'aborted';
  const { record, overBudget } = await recordOf(
    req,
    asked.result,
    { input, stream, buttons, speak, timedOut: timeout.aborted, cancelled: cancel.aborted },
    deps,
    signal,
  );
  return finishTurn(req, record, overBudget, { session, asked, model, timing }, deps, log);
}

/**
 * The turn's input: the users' reactions since the last turn (#31) first, framed as theirs
 * (recorded with the input, so they are read once); then each attachment (#16) said in a line,
 * photos as images for a model that sees them — the model this turn asks (the session's /model
 * choice), not the primary.
 */
async function turnInput(req: TurnRequest, history: SessionHistory, model: ModelClient, deps: TurnDeps, signal: AbortSignal): Promise<TurnInput> {
  const pending = history.pending;
  const situation = pending?.length ? [req.situation, REACTIONS_RULE].filter((t) => t !== undefined).join('\n\n') : req.situation;
  if (!req.media?.length) return { text: withNotes(pending, req.input) ?? req.input, images: [], heard: [], situation };
  const media = await mediaInput(req.media, req.enqueuedAt ?? deps.clock.now(), {
    ...(deps.media ?? { agentId: deps.agentId, workspace: deps.workspace, store: undefined, transcribe: undefined }),
    imageInput: model.imageInput ?? false,
    forwarded: req.forwarded,
    signal,
  });
  const own = [...media.lines, req.input].filter((t) => t !== '').join('\n');
  return {
    text: withNotes(pending, own) ?? own,
    images: media.images,
    heard: deps.media?.echoTranscript ? media.transcripts.filter((t) => t !== '') : [],
    situation,
  };
}

/** The turn's prompt: the workspace's files and the skills read once, the system prompt built over whichever history the ask ends up with. */
async function systemPromptFor(req: TurnRequest, deps: TurnDeps, tools: AgentTool[], situation: string | undefined, log: Logger): Promise<TurnPrompt> {
  const bootstrap = await readBootstrap(deps.workspace);
  const skills = (await deps.skills?.()) ?? [];
  for (const f of bootstrap) if (f.skipped) log.warn('workspace file left out of the prompt', { file: f.name, reason: f.skipped });
  return {
    over: (h) =>
      buildSystemPrompt({
        agentName: deps.agentName,
        agentId: deps.agentId,
        workspace: deps.workspace,
        tools,
        bootstrap,
        now: new Date(deps.clock.now()).toISOString(),
        summary: h.summary,
        situation,
        skills,
      }),
    toolChars: JSON.stringify(tools.map((t) => t.parameters)).length,
  };
}

/** The ask: the session compacted if the prompt would not fit, then the agent loop over it. */
async function askModel(
  req: TurnRequest,
  turn: {
    history: SessionHistory;
    model: ModelClient;
    input: TurnInput;
    tools: AgentTool[];
    prompt: TurnPrompt;
    stream: TurnStream;
    call: CallContext;
  },
  deps: TurnDeps,
  log: Logger,
  signal: AbortSignal,
): Promise<Asked> {
  const { model, input, prompt, stream, call } = turn;
  const history = await compactIfNeeded(
    req.sessionKey,
    turn.history,
    prompt.over({ summary: undefined, turns: [] }).length + input.text.length + prompt.toolChars,
    {
      model,
      transcripts: deps.transcripts,
      workspace: deps.workspace,
      clock: deps.clock,
      log,
      compactAtTokens: deps.limits.compactAtTokens,
      keepTurns: deps.limits.keepTurnsOnCompaction,
      call,
    },
    signal,
  );
  const started = deps.clock.now();
  const systemPrompt = prompt.over(history);
  let requests = 0;
  let toolMs = 0;
  const result = await runAgentLoop({
    model,
    systemPrompt,
    history: historyMessages(history),
    input: { role: 'user', content: input.images.length ? [{ type: 'text', text: input.text }, ...input.images] : input.text, timestamp: started },
    tools: turn.tools,
    toolContext: {
      sessionKey: agentSession(req),
      inboundId: req.inboundId,
      request: async (make) => {
        const envelope = make(derivedId(req.inboundId, `req.${++requests}`));
        await deps.outbox.send(envelope);
        return envelope.id;
      },
    },
    signal,
    clock: deps.clock,
    maxToolRounds: deps.limits.maxToolRounds,
    toolTimeoutMs: deps.limits.toolTimeoutMs,
    maxToolResultChars: deps.limits.maxToolResultChars,
    masker: deps.masker,
    onToolCall: (c) => {
      toolMs += c.ms;
      log.info('tool called', { tool: c.name, ms: c.ms, isError: c.isError });
    },
    onText: stream.onText,
    onToolStart: toolStarts(req, stream, (name) => void sendStatus(req, { ...deps, log }, 'tool', { tool: name })),
    thinking: history.think,
    call,
  });
  return { result, history, systemPrompt, toolChars: prompt.toolChars, started, toolMs };
}

/** What the turn records as its answer: the reply, the stop, the budget's note, or why it failed. */
async function recordOf(
  req: TurnRequest,
  result: LoopResult,
  turn: { input: TurnInput; stream: TurnStream; buttons: Buttons | undefined; speak: boolean; timedOut: boolean; cancelled: boolean },
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<{ record: TurnRecord; overBudget: boolean }> {
  const { input } = turn;
  // Images are not kept in the transcript (megabytes each): the input's lines say where each file is saved.
  const record: TurnRecord = {
    inboundId: req.inboundId,
    ts: deps.clock.now(),
    input: input.text,
    messages: input.images.length ? withoutImages(result.messages) : result.messages,
  };
  if (turn.cancelled && !result.ok) {
    // Stopped by the user: what it had written is dropped, the stop is the answer.
    record.messages = [];
    record.reply = STOPPED_TEXT;
  } else if (!result.ok && result.overBudget) {
    // The budget is spent (#31), before the turn's first model call or in its tool loop: the
    // person is told so instead of an answer; scheduled work (cron, heartbeats, wake-ups) says
    // nothing. The history keeps the question and this note, not the unfinished tool loop.
    delete record.messages;
    if (!req.scheduled) record.reply = result.overBudget.text;
    return { record, overBudget: true };
  } else if (!result.ok) {
    record.failed = processRedactor.redact(turn.timedOut ? `it took longer than ${Math.round(deps.limits.turnTimeoutMs / 1000)} s` : result.error);
  } else if (result.text === '' && !req.situation) {
    record.failed = 'the model returned no text';
  } else if (result.text !== '' && !req.quiet.includes(result.text)) {
    // The voice message quoted first where the agent is set to (recorded so, so a re-sent answer is the same).
    record.reply = input.heard.length
      ? `${input.heard.map((t) => `🎤 “${t.length > 500 ? `${t.slice(0, 500)}…` : t}”`).join('\n')}\n\n${result.text}`
      : result.text;
    if (turn.buttons) record.buttons = turn.buttons;
    // What blocks already said is not said again: the reply carries the rest (recorded, so a re-sent reply is the same).
    const blocks = turn.stream.blocksFor(record.reply);
    if (blocks) record.blocks = blocks;
    // The answer spoken, without the transcript quote; recorded, so a re-sent reply carries the same voice.
    const voice = turn.speak ? await deps.speech!.speak(result.text, signal) : undefined;
    if (voice) record.voice = voice;
  }
  return { record, overBudget: false };
}

/** The record kept, then sent with the turn's status: from here on, a redelivery re-sends rather than re-asks. */
async function finishTurn(
  req: TurnRequest,
  record: TurnRecord,
  overBudget: boolean,
  turn: { session: SessionRead; asked: Asked; model: ModelClient; timing: { queueWaitMs?: number; modelMs: number; toolMs: number } },
  deps: TurnDeps,
  log: Logger,
): Promise<TurnOutcome> {
  const { asked, model } = turn;
  await deps.transcripts.append(req.sessionKey, record);
  const answered = await sendAnswer(req, record, deps);
  // An isolated run's transcript is its own, not the session its status names: nothing to say about that one.
  const session = req.isolated
    ? undefined
    : sessionStats({
        entries: [...turn.session.entries, record],
        history: historyOf([record], asked.history),
        model,
        ...sessionModel(asked.history, deps),
        promptChars: asked.systemPrompt.length + asked.toolChars,
      });
  // A turn the budget stopped shows as failed (the dashboard, the registry's last error), its note sent or not.
  const failure = record.failed ?? (overBudget ? 'the agent’s budget is spent' : undefined);
  await sendStatus(req, { ...deps, log }, failure ? 'failed' : 'ended', { error: failure, timing: turn.timing, replied: answered, session });
  const fields = { model: model.label, ms: deps.clock.now() - asked.started, messages: asked.result.messages.length };
  if (overBudget) {
    log.info(answered ? 'turn stopped: the budget is spent; the asker was told' : 'scheduled turn skipped: the budget is spent', fields);
    return answered ? 'replied' : 'silent';
  }
  return endedTurn(log, record.failed, answered, fields);
}

/**
 * What a tool call's start feeds: the progress stream's status (progress streaming), and where the
 * chat shows status reactions (#31) a `tool` status for the first call of the attempt only (the
 * reaction moves forward only, so later calls would change nothing). Undefined when neither.
 */
function toolStarts(req: TurnRequest, stream: TurnStream, firstTool: (name: string) => void): ((c: { name: string; said: string }) => void) | undefined {
  if (!req.reportTools) return stream.onToolStart && ((c) => stream.onToolStart!(c.name, c.said));
  let reported = false;
  return (c) => {
    stream.onToolStart?.(c.name, c.said);
    if (reported) return;
    reported = true;
    firstTool(c.name);
  };
}

/** The turn's messages with each image replaced by a word, for the transcript. */
function withoutImages(messages: Message[]): Message[] {
  return messages.map((m) =>
    m.role === 'user' && Array.isArray(m.content)
      ? { ...m, content: m.content.map((c) => (c.type === 'image' ? { type: 'text' as const, text: '[image]' } : c)) }
      : m,
  );
}

/**
 * The session of the agent's that the turn belongs to, as the control plane queued it: an
 * isolated cron run records its transcript under a session of its own, but a request it
 * makes (sessions_send) comes from the job's session, which is what its inbound names.
 */
function agentSession(req: TurnRequest): string {
  return req.answer.kind === 'reply' ? req.answer.sessionKey : req.sessionKey;
}
