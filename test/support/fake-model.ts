// A fake model server on 127.0.0.1 speaking OpenAI chat completions and Anthropic messages
// (JSON and SSE streaming), answering from a script or a responder and recording every request.
// Usage: `const model = await start(); model.script({ text: 'hi' })`. Never a paid API.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { listenLocal, Recorder, sendJson, sleepUnlessClosed } from './fake-http.ts';
import { anthropicMessages } from './model-wire/anthropic.ts';
import type { ModelApi, ModelReply, ReplyContext, WireApi } from './model-wire/common.ts';
import { openaiCompletions } from './model-wire/openai.ts';

export type { ModelApi, ModelReply, ToolCallReply } from './model-wire/common.ts';

export interface ModelRequest {
  api: ModelApi;
  path: string;
  /** Lower-cased names, as Node gives them. */
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Text of the last user message that has text ('' if none). */
  lastUserText: string;
  /** Image parts of the request's messages (#16), in either API's form, decoded: type, byte count and digest. */
  images: ImagePart[];
  at: number;
}

export interface ImagePart {
  mimeType: string;
  size: number;
  sha256: string;
}

/** OpenAI's `image_url` data URLs and Anthropic's base64 `image` sources, wherever they sit in the messages. */
export function imagePartsOf(body: unknown): ImagePart[] {
  const out: ImagePart[] = [];
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return out;
  const add = (mimeType: string, base64: string) => {
    const bytes = Buffer.from(base64, 'base64');
    out.push({ mimeType, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  };
  for (const m of messages as { content?: unknown }[]) {
    if (!Array.isArray(m.content)) continue;
    for (const part of m.content as Record<string, any>[]) {
      if (part?.type === 'image_url' && typeof part.image_url?.url === 'string') {
        const match = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url.url);
        if (match) add(match[1]!, match[2]!);
      } else if (part?.type === 'image' && part.source?.type === 'base64' && typeof part.source.data === 'string') {
        add(String(part.source.media_type), part.source.data);
      }
    }
  }
  return out;
}

export type Responder = (request: ModelRequest) => ModelReply | Promise<ModelReply>;

export interface FakeModel {
  url: string;
  /** What to put in a pi-ai Model's `baseUrl`: the OpenAI SDK appends `/chat/completions`, the Anthropic SDK `/v1/messages`. */
  baseUrls: Record<ModelApi, string>;
  close(): Promise<void>;
  /** Queues replies, used one per request (either API) before the responder is asked. */
  script(...replies: ModelReply[]): void;
  /** How many scripted replies are still queued. */
  scripted(): number;
  setResponder(responder: Responder): void;
  requests(): ModelRequest[];
  waitForRequests(n: number, timeoutMs?: number): Promise<ModelRequest[]>;
}

export interface FakeModelOptions {
  /** When set, requests must carry this key (Bearer / x-api-key); a wrong one gets the API's 401. */
  apiKey?: string;
  responder?: Responder;
  port?: number;
}

const WIRES: readonly WireApi[] = [openaiCompletions, anthropicMessages];

export const echoResponder: Responder = (request) => ({ text: `echo: ${request.lastUserText}` });

export async function start(options: FakeModelOptions = {}): Promise<FakeModel> {
  const queue: ModelReply[] = [];
  const recorder = new Recorder<ModelRequest>();
  let responder = options.responder ?? echoResponder;
  let idCounter = 0;
  const nextId = (prefix: string): string => `${prefix}fake${String(++idCounter).padStart(4, '0')}`;

  const server = await listenLocal(async (req, res, rawBody) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const wire = WIRES.find((w) => w.paths.includes(path));
    if (!wire || req.method !== 'POST') {
      const notFound = (wire ?? openaiCompletions).error(404, `Invalid URL (${req.method} ${path})`);
      return sendJson(res, 404, notFound);
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      return sendJson(res, 400, wire.error(400, 'The request body is not valid JSON.'));
    }
    const parsed = wire.parse(body);
    const lastUserText = parsed.ok ? parsed.request.lastUserText : '';
    const request: ModelRequest = { api: wire.api, path, headers: req.headers, body, lastUserText, images: imagePartsOf(body), at: Date.now() };
    recorder.add(request); // recorded before any check, so tests can assert on what a rejected client sent

    // Headers (auth, version) are checked before the body, as both real APIs do.
    const headerProblem = wire.checkHeaders(req.headers, options.apiKey);
    if (headerProblem) return sendJson(res, headerProblem.status, headerProblem.body);
    if (!parsed.ok) return sendJson(res, parsed.error.status, parsed.error.body);
    const valid = parsed.request;

    const reply = queue.shift() ?? (await responder(request));
    await sleepUnlessClosed(res, reply.delayMs ?? 0);
    if (res.destroyed) return; // the client gave up while we waited

    if (reply.error) {
      const { status, body: errorBody, headers } = reply.error;
      return sendJson(res, status, errorBody ?? wire.error(status), headers);
    }
    const ctx: ReplyContext = { model: valid.model, inputTokens: valid.inputTokens, includeUsage: valid.includeUsage, nextId };
    if (!valid.stream) return sendJson(res, 200, wire.respond(reply, ctx));
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const frame of wire.stream(reply, ctx)) {
      if (res.destroyed) return;
      res.write(frame);
      // A model that writes slowly, for streamed replies.
      await sleepUnlessClosed(res, reply.frameDelayMs ?? 0);
    }
    res.end();
  }, options.port);

  return {
    url: server.url,
    baseUrls: { 'openai-completions': `${server.url}/v1`, 'anthropic-messages': server.url },
    close: () => server.close(),
    script: (...replies) => void queue.push(...replies),
    scripted: () => queue.length,
    setResponder: (next) => void (responder = next),
    requests: () => recorder.list(),
    waitForRequests: (n, timeoutMs = 20_000) =>
      recorder.waitFor(
        () => true,
        n,
        timeoutMs,
        `${n} model request(s)`,
        (all) => (all.length === 0 ? 'no requests' : all.map((r) => `${r.api} ${r.path}`).join(', ')),
      ),
  };
}
