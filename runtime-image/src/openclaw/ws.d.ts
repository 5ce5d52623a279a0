// The slice of the `ws` package (8.x) the gateway client (and the tests’ fake gateways) use;
// the package ships no types and @types/ws is not a dependency.
declare module 'ws' {
  import { EventEmitter } from 'node:events';
  export default class WebSocket extends EventEmitter {
    constructor(url: string, options?: { handshakeTimeout?: number; maxPayload?: number });
    send(data: string, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    once(event: 'open', listener: () => void): this;
    once(event: 'error', listener: (err: Error) => void): this;
  }
  /** The server side: the tests' fake gateways only. */
  export class WebSocketServer extends EventEmitter {
    constructor(options: { port?: number; host?: string });
    address(): { port: number };
    close(cb?: () => void): void;
    on(event: 'connection', listener: (socket: WebSocket) => void): this;
    once(event: 'listening', listener: () => void): this;
  }
}
