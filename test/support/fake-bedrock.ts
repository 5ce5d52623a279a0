// A fake Bedrock runtime on 127.0.0.1 for ConverseStream: records each call (path, SigV4
// authorization header, JSON body) and answers with scripted replies in the AWS event stream
// framing the SDK parses, or with an error status and Bedrock's error type. pi-ai's Bedrock
// client speaks HTTP/2 unless AWS_BEDROCK_FORCE_HTTP1 is set; the caller sets it (and
// credentials for the SDK's default chain) in its environment, or starts this fake with
// `http2` (cleartext HTTP/2, which the client speaks to an http:// endpoint), as the runtime
// bundle's client speaks it by default.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export interface BedrockCall {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export type BedrockReply = { text?: string; tool?: { id: string; name: string; input: object } } | { status: number; type: string };

export interface FakeBedrock {
  baseUrl: string;
  calls: BedrockCall[];
  /** Answered in order; once empty, each call is answered "echo". */
  replies: BedrockReply[];
  close(): Promise<void>;
}

export async function startFakeBedrock(opts: { http2?: boolean } = {}): Promise<FakeBedrock> {
  const calls: BedrockCall[] = [];
  const replies: BedrockReply[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw) as Record<string, unknown> });
      const reply = replies.shift() ?? { text: 'echo' };
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json', 'x-amzn-errortype': reply.type })
          .end(JSON.stringify({ message: `${reply.type}: slow down` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(eventMessage('messageStart', { role: 'assistant' }));
      let index = 0;
      if (reply.text) {
        for (const piece of reply.text.split(/(?<= )/)) res.write(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }));
        res.write(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
      }
      if (reply.tool) {
        res.write(eventMessage('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: reply.tool.id, name: reply.tool.name } } }));
        const json = JSON.stringify(reply.tool.input);
        for (let i = 0; i < json.length; i += 6)
          res.write(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: json.slice(i, i + 6) } } }));
        res.write(eventMessage('contentBlockStop', { contentBlockIndex: index }));
      }
      res.write(eventMessage('messageStop', { stopReason: reply.tool ? 'tool_use' : 'end_turn' }));
      res.end(eventMessage('metadata', { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, metrics: { latencyMs: 1 } }));
    });
  };
  // HTTP/2's compatibility API takes the same handler; its sessions stay open until closed here.
  const sessions = new Set<Http2Session>();
  const server = opts.http2
    ? createHttp2Server((req, res) => handle(req as unknown as IncomingMessage, res as unknown as ServerResponse)).on('session', (s: Http2Session) => {
        sessions.add(s);
        s.once('close', () => sessions.delete(s));
      })
    : createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    replies,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sessions) s.destroy();
      }),
  };
}

/**
 * The AWS event stream framing: prelude (total length, headers length, CRC32), string
 * headers, a JSON payload, and a CRC32 of the whole message.
 */
function eventMessage(eventType: string, payload: unknown): Buffer {
  const header = (name: string, value: string) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7]), len, v]);
  };
  const headers = Buffer.concat([header(':event-type', eventType), header(':content-type', 'application/json'), header(':message-type', 'event')]);
  const body = Buffer.from(JSON.stringify(payload));
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(16 + headers.length + body.length, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude));
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headers, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(withoutCrc));
  return Buffer.concat([withoutCrc, crc]);
}
