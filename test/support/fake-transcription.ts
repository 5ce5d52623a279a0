// A fake OpenAI-compatible transcription endpoint on 127.0.0.1 (#16): POST
// <url>/audio/transcriptions with a multipart body (file, model, language), answering
// `{ "text": … }` from a responder and recording each request's fields and file. Never a paid API.
import { createHash } from 'node:crypto';
import { listenLocal, Recorder, sendJson } from './fake-http.ts';

export interface TranscriptionRequest {
  authorization: string | undefined;
  model: string | undefined;
  language: string | undefined;
  file: { name: string; type: string; size: number; sha256: string } | undefined;
  at: number;
}

export interface FakeTranscription {
  /** The baseUrl to configure (tools.media.audio.baseUrl): `/audio/transcriptions` is appended. */
  url: string;
  requests(): TranscriptionRequest[];
  /** What the next requests are answered with: a transcript, or an HTTP error. */
  answer(reply: { text: string } | { status: number; message: string }): void;
  close(): Promise<void>;
}

export async function startTranscription(opts: { apiKey?: string } = {}): Promise<FakeTranscription> {
  const recorder = new Recorder<TranscriptionRequest>();
  let reply: { text: string } | { status: number; message: string } = { text: 'this is a transcript' };
  const server = await listenLocal(async (req, res, body) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://fake').pathname !== '/v1/audio/transcriptions')
      return sendJson(res, 404, { error: { message: 'not found' } });
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': String(req.headers['content-type']) } })
      .formData()
      .catch(() => undefined);
    const file = form?.get('file');
    const bytes = file && typeof file !== 'string' ? new Uint8Array(await file.arrayBuffer()) : undefined;
    recorder.add({
      authorization: req.headers.authorization,
      model: (form?.get('model') as string | null) ?? undefined,
      language: (form?.get('language') as string | null) ?? undefined,
      file:
        file && typeof file !== 'string' && bytes
          ? { name: file.name, type: file.type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
          : undefined,
      at: Date.now(),
    });
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
    if (!form || !bytes) return sendJson(res, 400, { error: { message: 'Could not parse multipart form' } });
    if ('status' in reply) return sendJson(res, reply.status, { error: { message: reply.message } });
    return sendJson(res, 200, { text: reply.text });
  });
  return {
    url: `${server.url}/v1`,
    requests: () => recorder.list(),
    answer: (r) => void (reply = r),
    close: () => server.close(),
  };
}
