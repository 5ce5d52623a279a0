// Plumbing shared by the fake HTTP servers (fake-telegram, fake-model): listen on an
// ephemeral 127.0.0.1 port, read bodies, and record what arrived so tests can wait for it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void> | void;

export interface LocalServer {
  /** `http://127.0.0.1:<port>`, no trailing slash (grammY rejects an apiRoot that has one). */
  url: string;
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 (not `localhost`: Node 20 may resolve it to ::1). */
export async function listenLocal(handler: Handler, port = 0): Promise<LocalServer> {
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => handler(req, res, body))
      .catch((error: unknown) => {
        // A throw here is a bug in the fake, not a scripted fault: make it loud.
        console.error('fake server handler failed', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('fake server bug, see stderr');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets (grammY and the model SDKs keep them) would hold close() open.
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Resolves after `ms`, or at once when the client hangs up (so a long wait never outlives its request). */
export function sleepUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done(): void {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

/** An append-only log that tests can wait on: "resolve once n matching entries exist". */
export class Recorder<T> {
  readonly #entries: T[] = [];
  readonly #listeners = new Set<() => void>();

  add(entry: T): void {
    this.#entries.push(entry);
    for (const listener of [...this.#listeners]) listener();
  }

  list(filter: (entry: T) => boolean = () => true): T[] {
    return this.#entries.filter(filter);
  }

  /** On timeout rejects with `expected` plus `describe(all entries)`, so a failing test shows what did happen. */
  waitFor(filter: (entry: T) => boolean, n: number, timeoutMs: number, expected: string, describe: (entries: T[]) => string): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const matching = this.list(filter);
        if (matching.length < n) return false;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(matching);
        return true;
      };
      const listener = (): void => void check();
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${expected}; recorded: ${describe(this.list())}`));
      }, timeoutMs);
      this.#listeners.add(listener);
      check();
    });
  }
}
