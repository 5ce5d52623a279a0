// Text to speech (#31): an OpenAI-compatible POST <baseUrl>/audio/speech asked for Ogg Opus
// (`response_format: "opus"`), as OpenAI and most self-hosted servers (Kokoro, openedai-speech)
// speak it. The endpoint is the operator's choice, as a model provider's baseUrl is; what it
// answers is not trusted: no redirect is followed (the key goes to the configured host only),
// the body is read up to VOICE_REPLY_MAX_BYTES and no further, an answer that is not audio or
// not Ogg Opus is refused, and the whole call is bounded by the configured timeout. Errors
// name the provider's status and message, never the key.
import type { ResolvedTts } from '../../../shared/config/tts.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { VOICE_REPLY_MAX_BYTES } from '../../../shared/media/media-ref.ts';
import { oggOpusSeconds } from './ogg-opus.ts';

export interface Speech {
  bytes: Uint8Array;
  durationSeconds: number;
}

export type Synthesize = (text: string, signal: AbortSignal) => Promise<Speech>;

/** What an error body may add to a refusal: the provider's message, cut short. */
const ERROR_BODY_MAX_BYTES = 4_096;

export function openAiSpeech(tts: ResolvedTts, apiKey: string | undefined, doFetch: typeof fetch = fetch, maxBytes = VOICE_REPLY_MAX_BYTES): Synthesize {
  const url = `${tts.baseUrl.replace(/\/+$/, '')}/audio/speech`;
  return async (text, signal) => {
    const timeout = AbortSignal.timeout(tts.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const failed = (why: string) => new ClawfleetError('SPEECH_FAILED', why);
    const late = () => (timeout.aborted ? failed(`the speech provider did not answer within ${Math.round(tts.timeoutMs / 1000)} s`) : undefined);
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model: tts.model, voice: tts.voice, input: text, response_format: 'opus' }),
        // A redirect would take the key to a host nobody configured.
        redirect: 'error',
        signal: both,
      });
    } catch (err) {
      throw late() ?? failed(`the speech provider could not be reached (${(err as Error).name})`);
    }
    try {
      if (!res.ok) {
        const said = errorMessage(await readCapped(res, ERROR_BODY_MAX_BYTES, true));
        throw failed(`the speech provider answered ${res.status}${said ? `: ${said}` : ''}`);
      }
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== '' && !type.startsWith('audio/') && type !== 'application/octet-stream' && type !== 'application/ogg')
        throw failed(`the speech provider answered ${type}, not audio`);
      const declared = Number(res.headers.get('content-length') ?? Number.NaN);
      if (declared > maxBytes) throw failed(`the speech provider's answer is ${declared} bytes, over the ${maxBytes} a voice message may be`);
      const bytes = await readCapped(res, maxBytes, false);
      if (!bytes) throw failed(`the speech provider's answer is over the ${maxBytes} bytes a voice message may be`);
      return { bytes, durationSeconds: oggOpusSeconds(bytes) };
    } catch (err) {
      await res.body?.cancel().catch(() => undefined);
      if (err instanceof ClawfleetError) throw err;
      throw late() ?? failed(`the speech provider's answer could not be read (${(err as Error).name})`);
    }
  };
}

/** The body up to `max` bytes; past that, undefined (or, with `cut`, what was read so far). */
async function readCapped(res: Response, max: number, cut: boolean): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the body: the rest is never read.
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > max) {
      if (!cut) return undefined;
      chunks.push(chunk.subarray(0, chunk.byteLength - (size - max)));
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The message of an OpenAI-style error body ({"error": {"message"}}), printable and short. */
function errorMessage(body: Uint8Array | undefined): string {
  if (!body || body.byteLength === 0) return '';
  const text = Buffer.from(body).toString('utf8');
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
  } catch {
    return '';
  }
  return typeof message === 'string' ? message.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300) : '';
}
