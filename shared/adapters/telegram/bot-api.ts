// A small Telegram Bot API client. Its errors name the method and Telegram's answer but
// never the request URL, which carries the bot token.

import { ClawfleetError } from '../../errors.ts';
import type { SentMessage } from '../../ports.ts';

export class TelegramApiError extends Error {
  override name = 'TelegramApiError';
  constructor(
    readonly method: string,
    /** Telegram's error_code, or 0 when the request never got an answer. */
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(`Telegram ${method} failed: ${errorCode || 'network'} ${description}`, options);
  }

  /** Worth trying again later: rate limits, Telegram's own failures, network trouble. */
  get retriable(): boolean {
    return this.errorCode === 0 || this.errorCode === 429 || this.errorCode >= 500;
  }
}

export interface SendMessageParams {
  chat_id: string | number;
  text: string;
  message_thread_id?: number;
  parse_mode?: 'HTML' | 'MarkdownV2';
}

export interface BotApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
  /** A method with one file upload (sendPhoto, sendDocument…): a multipart body, the file under `file.field`. */
  upload?<T = unknown>(method: string, params: Record<string, unknown>, file: UploadFile): Promise<T>;
  /** A file's bytes by its getFile path; refused past `maxBytes` without reading the rest. */
  download?(filePath: string, maxBytes: number): Promise<Uint8Array>;
}

export interface UploadFile {
  /** The parameter it goes in: photo, document, voice, audio. */
  field: string;
  fileName: string;
  mimeType: string;
  bytes: Uint8Array;
}

export function createBotApi(opts: { apiRoot: string; token: string; timeoutMs?: number; fetch?: typeof fetch }): BotApi {
  const doFetch = opts.fetch ?? fetch;
  const root = opts.apiRoot.replace(/\/+$/, '');
  const post = async (method: string, init: { headers?: Record<string, string>; body: string | FormData }, timeoutMs: number): Promise<Response> => {
    try {
      return await doFetch(`${root}/bot${opts.token}/${method}`, { method: 'POST', ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      // The cause may quote the URL; keep only its message's kind, not the text.
      throw new TelegramApiError(method, 0, (err as Error).name || 'request failed');
    }
  };
  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      const res = await post(method, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) }, opts.timeoutMs ?? 15_000);
      return answerOf<T>(method, res);
    },
    async upload<T>(method: string, params: Record<string, unknown>, file: UploadFile): Promise<T> {
      const form = new FormData();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
      // No copy of up to 50 MB where the bytes already sit in a plain ArrayBuffer (λ outbox's memory).
      const part = file.bytes.buffer instanceof ArrayBuffer ? (file.bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(file.bytes);
      form.set(file.field, new Blob([part], { type: file.mimeType }), file.fileName);
      // Up to 50 MB at a slow link: more time than a JSON call.
      const res = await post(method, { body: form }, Math.max(opts.timeoutMs ?? 15_000, 120_000));
      return answerOf<T>(method, res);
    },
    async download(filePath: string, maxBytes: number): Promise<Uint8Array> {
      let res: Response;
      try {
        res = await doFetch(`${root}/file/bot${opts.token}/${filePath.split('/').map(encodeURIComponent).join('/')}`, {
          signal: AbortSignal.timeout(Math.max(opts.timeoutMs ?? 15_000, 60_000)),
        });
      } catch (err) {
        throw new TelegramApiError('getFile download', 0, (err as Error).name || 'request failed');
      }
      if (!res.ok) throw new TelegramApiError('getFile download', res.status, `HTTP ${res.status}`);
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        await res.body?.cancel();
        throw new ClawfleetError('MEDIA_TOO_LARGE', `the file is ${declared} bytes, over the ${maxBytes} a bot may download`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of res.body ?? []) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new ClawfleetError('MEDIA_TOO_LARGE', `the file is over the ${maxBytes} bytes a bot may download`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    },
  };
}

/** The Bot API's answer envelope: the result, or its error as a TelegramApiError. */
async function answerOf<T>(method: string, res: Response): Promise<T> {
  const json = (await res.json().catch(() => undefined)) as
    | { ok: true; result: T }
    | { ok: false; error_code?: number; description?: string; parameters?: { retry_after?: number } }
    | undefined;
  if (json?.ok === true) return json.result;
  throw new TelegramApiError(method, json?.error_code ?? res.status, json?.description ?? `HTTP ${res.status}`, json?.parameters?.retry_after);
}

/** The id of a message Telegram says it sent (a method's Message result), where it says one. */
export const sentMessage = (result: unknown): SentMessage | undefined => {
  const id = (result as { message_id?: unknown } | undefined)?.message_id;
  return typeof id === 'number' && Number.isInteger(id) ? { messageId: id } : undefined;
};
