// Spoken replies (#31): whether a turn's answer is spoken, and the speaking. The runtime holds
// the agent's keys, so it synthesizes: the answer's words go to the speech provider, the Ogg
// Opus comes back, is put under this agent's own out/ prefix (named by its digest, as
// send_file names files) and is recorded with the turn, so a redelivered turn re-sends the same
// voice rather than speaking again. A synthesis that fails leaves the answer as text alone,
// with a log line and nothing odd said to the user.
import { resolvedTts, type ResolvedTts, type TtsAuto, type TtsConfig } from '../../../shared/config/tts.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import { outboundMediaKey } from '../../../shared/media/media-ref.ts';
import type { MediaStore } from '../../../shared/ports.ts';
import type { VoiceRef } from '../../../shared/protocol/envelopes.ts';
import { sha256Hex } from '../../../shared/lazy-crypto.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';
import type { SessionHistory } from '../session/transcript-store.ts';
import type { TurnRequest } from '../turn/turn-request.ts';
import { openAiSpeech, type Synthesize } from './speech-client.ts';
import { spokenText } from './spoken-text.ts';

export interface Speaker {
  /** The agent's own setting, for /voice to show. */
  readonly auto: TtsAuto;
  /** Whether this turn's answer is spoken: known when the turn starts, so an answer to be spoken is not sent in blocks. */
  wanted(req: TurnRequest, history: Pick<SessionHistory, 'voice'>): boolean;
  /** The answer spoken and kept in the media store, or undefined when it could not be (the answer then goes as text alone). */
  speak(answer: string, signal: AbortSignal): Promise<VoiceRef | undefined>;
}

/** Inbound attachments that are someone speaking: what `tts.auto: "inbound"` answers in kind. */
const SPOKEN_KINDS = new Set(['voice', 'video_note']);

export interface SpeakerDeps {
  agentId: string;
  tts: TtsConfig;
  /** The value of tts.apiKeySecret in the agent's own secret (awaited at start like a provider's key). */
  apiKey: string | undefined;
  store: MediaStore;
  masker: SecretMasker;
  log: Logger;
  /** For tests: the synthesis, instead of the configured endpoint. */
  synthesize?: Synthesize;
}

export function speaker(deps: SpeakerDeps): Speaker {
  const tts: ResolvedTts = resolvedTts(deps.tts);
  const synthesize = deps.synthesize ?? openAiSpeech(tts, deps.apiKey);
  return {
    auto: tts.auto,
    wanted(req, history) {
      // Only an answer into a chat: one for another agent (agent_send) is text between agents.
      if (req.answer.kind !== 'reply') return false;
      if (history.voice !== undefined) return history.voice === 'on';
      if (tts.auto === 'always') return true;
      return tts.auto === 'inbound' && (req.media?.some((m) => SPOKEN_KINDS.has(m.kind)) ?? false);
    },
    async speak(answer, signal) {
      const text = spokenText(answer, deps.masker, tts.maxTextLength);
      if (text === '') return undefined;
      try {
        const speech = await synthesize(text, signal);
        // Named by the bytes: a turn redone after a crash that speaks the same writes the same key.
        const key = outboundMediaKey(deps.agentId, sha256Hex(speech.bytes).slice(0, 32), 'voice.ogg');
        await deps.store.put(key, speech.bytes, 'audio/ogg');
        deps.log.info('reply spoken', { chars: text.length, bytes: speech.bytes.byteLength, seconds: speech.durationSeconds });
        return { key, size: speech.bytes.byteLength, durationSeconds: speech.durationSeconds };
      } catch (err) {
        deps.log.warn('reply not spoken; it goes as text alone', { chars: text.length, ...errorFields(err) });
        return undefined;
      }
    },
  };
}
