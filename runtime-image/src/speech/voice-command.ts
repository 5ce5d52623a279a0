// /voice [on|off|default]: whether this session's replies are spoken (OpenClaw's `/tts chat
// on|off|default`), kept in the transcript as /model and /think are, until the next /voice or
// /new. What the command answers and records; the turn appends and sends it like theirs.
import type { TtsAuto } from '../../../shared/config/tts.ts';
import type { SessionHistory } from '../session/transcript-store.ts';
import type { TurnRecord } from '../../../shared/workspace/transcript-entry.ts';

const AUTO_WORDS: Record<TtsAuto, string> = {
  off: 'off (only sessions that say /voice on)',
  always: 'always',
  inbound: 'answers to voice messages',
};

/** The reply to /voice and the setting it records, if any; `auto` undefined: the agent has no tts. */
export function voiceCommand(args: string, history: Pick<SessionHistory, 'voice'>, auto: TtsAuto | undefined): Pick<TurnRecord, 'reply' | 'voiceSetting'> {
  if (auto === undefined) return { reply: 'Spoken replies are not set up for this agent (its config has no tts).' };
  const wanted = args.trim().toLowerCase();
  const agentWide = `the agent's setting: ${AUTO_WORDS[auto]}`;
  if (wanted === '') {
    const now = history.voice ?? `default (${agentWide})`;
    return { reply: `Spoken replies in this session: ${now}. Change with /voice on, /voice off or /voice default.` };
  }
  if (wanted === 'on' || wanted === 'off') return { reply: `Spoken replies in this session: ${wanted}.`, voiceSetting: wanted };
  if (wanted === 'default') return { reply: `Spoken replies in this session follow ${agentWide}.`, voiceSetting: 'default' };
  return { reply: `"${args.trim().slice(0, 64)}" is not on, off or default.` };
}
