// Local mode's Telegram: long polling with getUpdates, so a bot works without a public
// URL. Each update goes through the same admission as a webhook; the offset moves past an
// update only once it is queued, so nothing is lost when admission fails.
import { registerCommandMenu } from '../shared/adapters/telegram/command-menu.ts';
import { errorFields, type Logger } from '../shared/log.ts';
import { webhookSecretFor } from '../shared/telegram/webhook-secret.ts';
import { allowedUpdatesFor } from '../shared/control/streaming.ts';
import type { LocalControlPlane } from './sqlite-control-plane.ts';

/** getUpdates holds the request up to its 25 s timeout; the client waits longer than that. */
const POLL_REQUEST_TIMEOUT_MS = 40_000;

export function startTelegramPoller(cp: LocalControlPlane, accountId: string, token: string, log: Logger): { stop(): void } {
  const api = cp.telegram.api(token, POLL_REQUEST_TIMEOUT_MS);
  const secret = webhookSecretFor(token);
  let stopped = false;
  let offset = 0;
  const run = async () => {
    // getUpdates is refused while a webhook is set (say, by an earlier AWS deploy).
    await api.call('deleteWebhook', {}).catch((err) => log.warn('deleteWebhook failed', { accountId, ...errorFields(err) }));
    // The command menu, as a deploy registers it; a bot without one still answers commands.
    await registerCommandMenu(api, cp.config, accountId).catch((err) => log.warn('command menu not registered', { accountId, ...errorFields(err) }));
    while (!stopped) {
      try {
        // The same updates a deployed webhook is sent (edits only where the account passes them on).
        const updates = await api.call<{ update_id: number }[]>('getUpdates', {
          offset,
          timeout: 25,
          allowed_updates: allowedUpdatesFor(cp.config, accountId),
        });
        for (const update of updates) {
          if (stopped) return;
          const result = await cp.telegramUpdate(accountId, secret, JSON.stringify(update));
          if (result.status >= 500) throw new Error(`update ${update.update_id} not admitted (${result.status})`);
          offset = update.update_id + 1;
        }
      } catch (err) {
        if (stopped) return;
        log.warn('telegram polling failed; retrying in 5 s', { accountId, ...errorFields(err) });
        await new Promise((r) => setTimeout(r, 5_000));
      }
    }
  };
  void run();
  return { stop: () => void (stopped = true) };
}
