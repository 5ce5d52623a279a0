// The commands a session's runtime answers itself, without asking the model: /new and /reset
// (the session starts over), /model, /think and /voice (show or set the session's choice).
// Each is a line of the transcript, answered, and followed by the session's stats as they now
// stand, so /status says so before the next turn.
import type { Logger } from '../../../shared/log.ts';
import type { RuntimeCommand } from '../../../shared/protocol/envelopes.ts';
import { THINKING_LEVELS, type ThinkingLevel } from '../model/model.ts';
import { sessionStats } from '../session/session-stats.ts';
import { voiceCommand } from '../speech/voice-command.ts';
import { historyOf, type SessionHistory, type SessionRead } from '../session/transcript-store.ts';
import type { TurnRecord } from '../../../shared/workspace/transcript-entry.ts';
import { sendAnswer, sendStatus, type TurnOutcome } from './turn-answer.ts';
import type { TurnDeps } from './turn-deps.ts';
import type { TurnRequest } from './turn-request.ts';

/** The answer to /new and /reset. */
export const NEW_SESSION_TEXT = '✨ New session started. The earlier conversation is kept in the transcript but no longer in my context.';

/** What answering a command needs (of the turn's deps). */
export type CommandDeps = Pick<TurnDeps, 'agentId' | 'outbox' | 'clock' | 'log' | 'transcripts' | 'model' | 'models' | 'speech'>;

/** Answers `command`: recorded, sent, and the session's stats reported. */
export async function commandTurn(req: TurnRequest, command: RuntimeCommand, session: SessionRead, deps: CommandDeps, log: Logger): Promise<TurnOutcome> {
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, ...commandAnswer(command, session.history, deps) };
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  const history = historyOf([record], session.history);
  const { ref, chosen } = sessionModel(history, deps);
  const stats = sessionStats({ entries: [...session.entries, record], history, model: chosen ? deps.models!.forRef(ref) : deps.model, ref, chosen });
  await sendStatus(req, deps, 'ended', { replied: true, session: stats });
  if (record.reset) log.info('session reset by command', { command: command.name });
  return 'replied';
}

/** What a command answers, and the setting it records, if any. */
function commandAnswer(
  command: RuntimeCommand,
  history: SessionHistory,
  deps: CommandDeps,
): Pick<TurnRecord, 'reply' | 'reset' | 'model' | 'think' | 'voiceSetting'> {
  switch (command.name) {
    case 'model':
      return modelCommand(command.args, history, deps);
    case 'think':
      return thinkCommand(command.args, history);
    case 'voice':
      return voiceCommand(command.args, history, deps.speech?.auto);
    case 'new':
    case 'reset':
      // The session starts over after this line; the earlier turns stay in the file.
      return { reply: NEW_SESSION_TEXT, reset: true };
  }
}

/** /model: shows the session's model, or switches it to another of the agent's configured models. */
function modelCommand(args: string, history: SessionHistory, deps: Pick<TurnDeps, 'models' | 'model'>): Pick<TurnRecord, 'reply' | 'model'> {
  const refs = deps.models?.refs ?? [];
  const current = history.model ?? refs[0] ?? deps.model.label;
  const wanted = args.trim();
  if (wanted === '')
    return { reply: `Model for this session: ${current}.${refs.length > 1 ? ` Configured: ${refs.join(', ')}. Switch with /model <name>.` : ''}` };
  if (!refs.includes(wanted)) return { reply: `"${wanted}" is not one of this agent's models${refs.length > 0 ? `: ${refs.join(', ')}` : ''}.` };
  return { model: wanted, reply: `Model for this session: ${wanted}.` };
}

/** /think [level]: shows or sets the thinking level this session's turns ask for (of models that can reason). */
function thinkCommand(args: string, history: SessionHistory): Pick<TurnRecord, 'reply' | 'think'> {
  const wanted = args.trim().toLowerCase();
  const levels = THINKING_LEVELS.join(', ');
  if (wanted === '') return { reply: `Thinking for this session: ${history.think ?? 'off'} (${levels}).` };
  if (!(THINKING_LEVELS as readonly string[]).includes(wanted)) return { reply: `"${wanted}" is not a thinking level: ${levels}.` };
  return {
    think: wanted as ThinkingLevel,
    reply: `Thinking for this session: ${wanted}${wanted === 'off' ? '' : ' (for models that can reason; others answer as before or refuse it)'}.`,
  };
}

/** The model a session's turns use: its /model choice while that is still configured, else the agent's own. */
export function sessionModel(history: SessionHistory, deps: Pick<TurnDeps, 'models' | 'model'>): { ref: string; chosen: boolean } {
  const chosen = history.model !== undefined && (deps.models?.refs.includes(history.model) ?? false);
  return { ref: chosen ? history.model! : (deps.models?.refs[0] ?? deps.model.label), chosen };
}
