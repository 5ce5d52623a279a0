// The webhook's first steps: the request authenticated (a known account, a sane size, the
// account's secret token) and its body read as a Telegram update. Nothing is trusted before
// the token matches; nothing after it is more than the schema lets through.
import { errorFields } from '../log.ts';
import { TelegramUpdateSchema, type TelegramUpdate } from '../telegram/update.ts';
import { secretTokenMatches } from '../telegram/webhook-secret.ts';
import { unavailable, type HttpResult, type TelegramWebhookDeps, type WebhookRequest } from './telegram-webhook-deps.ts';

/** Telegram updates are a few KB; anything this large is not one. */
export const MAX_UPDATE_BYTES = 1024 * 1024;

/** The update, parsed, and the JSON it came as (the schema keeps only what we read; some steps read the rest). */
export interface ReadUpdate {
  update: TelegramUpdate;
  raw: unknown;
}

/** The request's update once it is authenticated and well formed; otherwise the answer that refuses it. */
export async function authenticatedUpdate(req: WebhookRequest, deps: TelegramWebhookDeps): Promise<ReadUpdate | HttpResult> {
  const account = deps.config.channels.telegram?.accounts[req.accountId];
  if (!account) return { status: 404, body: { error: `no telegram account "${req.accountId}"` } };

  if (Buffer.byteLength(req.body) > MAX_UPDATE_BYTES) {
    return { status: 413, body: { error: `update larger than ${MAX_UPDATE_BYTES} bytes` } };
  }
  let expected: string;
  try {
    expected = await deps.webhookSecret(req.accountId);
  } catch (err) {
    deps.log.error('cannot read the webhook secret', { accountId: req.accountId, ...errorFields(err) });
    return unavailable();
  }
  if (!secretTokenMatches(expected, req.secretToken)) {
    deps.log.warn('webhook secret token mismatch', { accountId: req.accountId });
    return { status: 401, body: { error: 'bad secret token' } };
  }
  return parseUpdate(req.body);
}

function parseUpdate(body: string): ReadUpdate | HttpResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { status: 400, body: { error: 'body is not JSON' } };
  }
  const parsed = TelegramUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { status: 400, body: { error: `not a Telegram update: ${issue.path.join('.') || '(root)'}: ${issue.message}` } };
  }
  return { update: parsed.data, raw };
}
