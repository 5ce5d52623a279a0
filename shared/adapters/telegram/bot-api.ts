// A small Telegram Bot API client. Its errors name the method and Telegram's answer but
// never the request URL, which carries the bot token.

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
}

export function createBotApi(opts: { apiRoot: string; token: string; timeoutMs?: number; fetch?: typeof fetch }): BotApi {
  const doFetch = opts.fetch ?? fetch;
  const root = opts.apiRoot.replace(/\/+$/, '');
  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      let res: Response;
      try {
        res = await doFetch(`${root}/bot${opts.token}/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(params),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
        });
      } catch (err) {
        // The cause may quote the URL; keep only its message's kind, not the text.
        throw new TelegramApiError(method, 0, (err as Error).name || 'request failed');
      }
      const json = (await res.json().catch(() => undefined)) as
        | { ok: true; result: T }
        | { ok: false; error_code?: number; description?: string; parameters?: { retry_after?: number } }
        | undefined;
      if (json?.ok === true) return json.result;
      throw new TelegramApiError(
        method,
        json?.error_code ?? res.status,
        json?.description ?? `HTTP ${res.status}`,
        json?.parameters?.retry_after,
      );
    },
  };
}
