// A fake OpenAI-compatible text-to-speech endpoint on 127.0.0.1 (#31): POST <url>/audio/speech
// with a JSON body (model, voice, input, response_format), answering a real Ogg Opus file
// (test/fixtures/speech/reply.opus.ogg, made with sox and opusenc) as OpenAI does, and recording
// each request. Scriptable for the hostile cases: an error status, a body of any bytes and type,
// a huge body, a slow answer, a redirect. Never a paid API.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { listenLocal, Recorder, sendJson, sleepUnlessClosed } from './fake-http.ts';

/** The fixture every speech request is answered with unless scripted otherwise: 1.2 s of tone as Ogg Opus. */
export const SPEECH_OGG = readFileSync(new URL('../fixtures/speech/reply.opus.ogg', import.meta.url));

export interface SpeechRequest {
  authorization: string | undefined;
  body: { model?: unknown; voice?: unknown; input?: unknown; response_format?: unknown } | undefined;
  at: number;
}

/** How the next request is answered. */
export type SpeechAnswer =
  | { kind: 'ogg'; delayMs?: number }
  | { kind: 'error'; status: number; message: string }
  | { kind: 'bytes'; body: Uint8Array; contentType: string; declaredLength?: number }
  /** A body of `bytes` bytes streamed in 64 KB chunks, with no content-length: a server that never stops. */
  | { kind: 'endless'; bytes: number }
  /** Nothing at all until the client gives up. */
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string };

export interface FakeSpeech {
  /** The baseUrl to configure (tts.baseUrl): `/audio/speech` is appended. */
  url: string;
  requests(): SpeechRequest[];
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<SpeechRequest[]>;
  /** Answers the next requests in turn (then the Ogg fixture again). */
  script(...answers: SpeechAnswer[]): void;
  close(): Promise<void>;
}

export async function startSpeech(opts: { apiKey?: string } = {}): Promise<FakeSpeech> {
  const recorder = new Recorder<SpeechRequest>();
  const scripted: SpeechAnswer[] = [];
  const server = await listenLocal(async (req, res, raw) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://fake').pathname !== '/v1/audio/speech')
      return sendJson(res, 404, { error: { message: 'not found' } });
    let body: SpeechRequest['body'];
    try {
      body = JSON.parse(raw.toString('utf8')) as SpeechRequest['body'];
    } catch {
      body = undefined;
    }
    recorder.add({ authorization: req.headers.authorization, body, at: Date.now() });
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
    if (!body || typeof body.input !== 'string' || body.input === '') return sendJson(res, 400, { error: { message: "'input' is a required property" } });
    await answer(res, scripted.shift() ?? { kind: 'ogg' });
  });
  return {
    url: `${server.url}/v1`,
    requests: () => recorder.list(),
    waitForRequests: (n, timeoutMs = 30_000) =>
      recorder.waitFor(
        () => true,
        n,
        timeoutMs,
        `${n} speech request(s)`,
        (r) => `${r.length} so far`,
      ),
    script: (...answers) => void scripted.push(...answers),
    close: () => server.close(),
  };
}

async function answer(res: ServerResponse, a: SpeechAnswer): Promise<void> {
  switch (a.kind) {
    case 'ogg':
      await sleepUnlessClosed(res, a.delayMs ?? 0);
      res.writeHead(200, { 'content-type': 'audio/ogg', 'content-length': SPEECH_OGG.byteLength });
      return void res.end(SPEECH_OGG);
    case 'error':
      return sendJson(res, a.status, { error: { message: a.message, type: 'invalid_request_error' } });
    case 'bytes':
      res.writeHead(200, { 'content-type': a.contentType, 'content-length': a.declaredLength ?? a.body.byteLength });
      return void res.end(a.declaredLength === undefined ? a.body : a.body.subarray(0, 0));
    case 'endless': {
      res.writeHead(200, { 'content-type': 'audio/ogg' });
      const chunk = Buffer.alloc(64 * 1024, 0x4f);
      for (let sent = 0; sent < a.bytes && !res.destroyed; sent += chunk.byteLength) {
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
      return void res.end();
    }
    case 'hang':
      return sleepUnlessClosed(res, 10 * 60_000);
    case 'redirect':
      res.writeHead(307, { location: a.location });
      return void res.end();
  }
}

/** Resolves when the response can take more, or is gone. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
