// An HTTP(S) GET that goes only where the fetch guard allows: each hop's URL is vetted
// (redirects are followed here, by hand, up to a cap) and its connection pinned to the
// vetted addresses. The body is read up to a byte limit, decompressed as it arrives.
import { request as httpRequest, STATUS_CODES, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ClawfleetError } from '../../../shared/errors.ts';
import { FetchRefusedError, pinnedLookup, systemResolve, vetUrl, type FetchPolicy, type Resolve } from './fetch-guard.ts';

export interface GuardedGetOptions {
  policy: FetchPolicy;
  resolve?: Resolve | undefined;
  signal: AbortSignal;
  /** Bytes of (decompressed) body kept; reading stops there. */
  maxBytes: number;
  maxRedirects?: number | undefined;
  headers?: Record<string, string> | undefined;
  /** Extra trusted CA certificates (PEM) for https, besides the system's. */
  ca?: string | undefined;
}

export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** The standard reason phrase for the status (the server's own text is not passed on). */
  statusText: string;
  contentType: string;
  body: Buffer;
  truncated: boolean;
  /** Each URL redirected to, in order. */
  redirects: string[];
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function guardedGet(url: string, opts: GuardedGetOptions): Promise<GuardedResponse> {
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const redirects: string[] = [];
  let current = new URL(url);
  for (;;) {
    // Checked on every hop: a public page may redirect anywhere.
    const vetted = await vetUrl(current, opts.policy, opts.resolve ?? systemResolve);
    const res = await requestOnce(current, opts, pinnedLookup(vetted));
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location) {
      res.destroy();
      if (redirects.length >= maxRedirects) throw new ClawfleetError('FETCH_REDIRECTS', `${url} redirected more than ${maxRedirects} times`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new ClawfleetError('FETCH_REDIRECTS', `${current.href} redirected to "${location.slice(0, 200)}", which is not a URL`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new FetchRefusedError(`${current.href} redirected to a ${next.protocol} URL; only http and https are followed`);
      redirects.push(next.href);
      current = next;
      continue;
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > opts.maxBytes && !res.headers['content-encoding']) {
      res.destroy();
      throw new ClawfleetError('FETCH_TOO_LARGE', `${current.href} is ${declared} bytes, over the ${opts.maxBytes}-byte limit`);
    }
    const { body, truncated } = await readCapped(res, opts.maxBytes);
    return {
      url: current.href,
      status,
      statusText: STATUS_CODES[status] ?? '',
      contentType: mediaType(res.headers['content-type']),
      body,
      truncated,
      redirects,
    };
  }
}

function requestOnce(url: URL, opts: GuardedGetOptions, lookup: ReturnType<typeof pinnedLookup>): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // agent: false, so no pooled socket (connected under another lookup) is reused.
    const tls = opts.ca ? { ca: [...rootCertificates, opts.ca] } : {};
    const req = request(
      url,
      { method: 'GET', headers: { 'accept-encoding': 'gzip, deflate, br', ...opts.headers }, lookup, agent: false, signal: opts.signal, ...tls },
      resolve,
    );
    // on, not once: an error after the response (a reset mid-body) must not go unhandled; the body reader sees it.
    req.on('error', reject);
    req.end();
  });
}

/** Reads at most maxBytes of the decoded body; the rest is never downloaded (the socket is closed). */
async function readCapped(res: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const source = decoded(res);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      chunks.push(buf);
      size += buf.length;
      if (size >= maxBytes) return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
    }
    return { body: Buffer.concat(chunks), truncated: false };
  } finally {
    res.destroy();
  }
}

function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === '' || encoding === 'identity') return res;
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) {
    res.destroy();
    throw new ClawfleetError('FETCH_ENCODING', `the server sent a body in an encoding web_fetch cannot read ("${encoding.slice(0, 40)}")`);
  }
  // pipeline passes an error on either side (a reset socket, a corrupt stream) to the reader.
  return pipeline(res, decoder, () => {});
}

/** "text/html; charset=utf-8" → "text/html"; anything that is not a media type → "". The server's text never passes unchecked. */
function mediaType(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(type) ? type : '';
}
