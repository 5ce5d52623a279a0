// Registers each Telegram account's webhook with the deployed Function URL: the path
// /telegram/<accountId>, the secret token derived from the bot token (Telegram echoes
// it in X-Telegram-Bot-Api-Secret-Token), and only the updates the control plane reads; and
// each bot's command menu (setMyCommands).
import type { FleetConfig } from '../../shared/config/schema.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { createBotApi } from '../../shared/adapters/telegram/bot-api.ts';
import { registerCommandMenu } from '../../shared/adapters/telegram/command-menu.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { allowedUpdatesFor } from '../../shared/control/streaming.ts';

/** The updates the webhook handler acts on; Telegram sends nothing else (edits too for an account that passes them on). */
export { ALLOWED_UPDATES } from '../../shared/control/streaming.ts';

export interface RegisterWebhooksOptions {
  config: FleetConfig;
  /** The TelegramWebhookUrl output of the control-plane stack. */
  functionUrl: string;
  /** Bot token of an account, e.g. read from the control-plane Telegram secret. */
  botToken(accountId: string): Promise<string>;
  fetch?: typeof fetch;
}

function webhookUrlFor(functionUrl: string, accountId: string): string {
  return `${functionUrl.replace(/\/+$/, '')}/telegram/${encodeURIComponent(accountId)}`;
}

/** Calls setWebhook for every account, and registers its command menu; returns the URL each one now posts to. */
export async function registerWebhooks(opts: RegisterWebhooksOptions): Promise<{ accountId: string; url: string }[]> {
  const telegram = opts.config.channels.telegram;
  if (!telegram) throw new ClawfleetError('TELEGRAM_NOT_CONFIGURED', 'the config has no channels.telegram');
  const done: { accountId: string; url: string }[] = [];
  for (const accountId of Object.keys(telegram.accounts)) {
    const token = await opts.botToken(accountId);
    const url = webhookUrlFor(opts.functionUrl, accountId);
    const api = createBotApi({ apiRoot: telegram.apiRoot, token, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
    await api.call('setWebhook', { url, secret_token: webhookSecretFor(token), allowed_updates: allowedUpdatesFor(opts.config, accountId) });
    await registerCommandMenu(api, opts.config, accountId);
    done.push({ accountId, url });
  }
  return done;
}
