// Voice and audio to text (#16): an OpenAI-compatible POST <baseUrl>/audio/transcriptions
// (multipart: file, model, language), as OpenAI, Groq and local whisper servers speak it; the
// agent's `tools.media.audio` names it and its key comes from the agent's own secret. Errors
// name the provider's status and message, never the key.
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import { ClawfleetError } from '../../../shared/errors.ts';

export type Transcriber = (audio: { bytes: Uint8Array; mimeType: string; fileName: string }, signal?: AbortSignal) => Promise<string>;

type AudioConfig = NonNullable<NonNullable<NonNullable<RuntimeConfig['agent']['tools']>['media']>['audio']>;

const TIMEOUT_MS = 120_000;
const MAX_TRANSCRIPT_CHARS = 20_000;

/** The agent's transcriber, or undefined when it has none configured. */
export function transcriberFor(config: RuntimeConfig, secrets: Record<string, string>, doFetch: typeof fetch = fetch): Transcriber | undefined {
  const audio = config.agent.tools?.media?.audio;
  if (!audio) return undefined;
  return openAiTranscriber(audio, audio.apiKeySecret ? secrets[audio.apiKeySecret] : undefined, doFetch);
}

export function openAiTranscriber(audio: AudioConfig, apiKey: string | undefined, doFetch: typeof fetch = fetch): Transcriber {
  const url = `${audio.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  return async ({ bytes, mimeType, fileName }, signal) => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(bytes)], { type: mimeType }), fileName);
    form.set('model', audio.model);
    form.set('response_format', 'json');
    if (audio.language) form.set('language', audio.language);
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        body: form,
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new ClawfleetError('TRANSCRIPTION_FAILED', `the transcription provider could not be reached (${(err as Error).name})`);
    }
    const body = (await res.json().catch(() => undefined)) as { text?: unknown; error?: { message?: unknown } } | undefined;
    if (!res.ok) {
      const said = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 300)}` : '';
      throw new ClawfleetError('TRANSCRIPTION_FAILED', `the transcription provider answered ${res.status}${said}`);
    }
    if (typeof body?.text !== 'string') throw new ClawfleetError('TRANSCRIPTION_FAILED', 'the transcription provider answered without a "text"');
    return body.text.trim().slice(0, MAX_TRANSCRIPT_CHARS);
  };
}
