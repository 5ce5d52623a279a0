// The control plane's Telegram bots, one per account: the bot token (a value in the control
// plane's telegram secret), the webhook secret derived from it, who the bot is (getMe, asked
// once per token) and one sender per token. The one place tokens are looked up, on AWS and locally.
import { telegramSecretOf } from '../../secrets/telegram-secrets.ts';
import type { FleetConfig } from '../../config/schema.ts';
import { ClawfleetError } from '../../errors.ts';
import type { PortFactories } from '../../control/control-plane.ts';
import type { ChannelSender, SecretStore, TelegramBots } from '../../ports.ts';
import { botIdFromToken, type BotIdentity } from '../../telegram/mention.ts';
import { webhookSecretFor } from '../../telegram/webhook-secret.ts';
import { createBotApi, type BotApi } from './bot-api.ts';
import { telegramSender } from './telegram-sender.ts';

export interface TelegramAccountsOptions {
  config: FleetConfig;
  /** The control plane's secrets; the tokens are values of its telegram secrets (telegram-secrets.ts says which). */
  secrets: SecretStore;
  /** Where an owner sets a missing token, said in the error: "in Secrets Manager", "in the local secrets file". */
  where: string;
  /** Tests hand in their own; the Bot API's wire format is the same. */
  fetch?: typeof fetch;
}

export class TelegramAccounts implements TelegramBots {
  // Keyed by token, so a rotated token gets a fresh client and a fresh getMe.
  private readonly senders = new Map<string, ChannelSender>();
  private readonly usernames = new Map<string, Promise<string | undefined>>();

  constructor(private readonly opts: TelegramAccountsOptions) {}

  /** The account's bot token, or undefined while none is set (local mode polls only accounts that have one). */
  async token(accountId: string): Promise<string | undefined> {
    const account = this.opts.config.channels.telegram?.accounts[accountId];
    if (!account) throw new ClawfleetError('ACCOUNT_UNKNOWN', `no telegram account "${accountId}"`);
    return (await this.opts.secrets.get(telegramSecretOf(this.opts.config, accountId)))[account.botTokenSecret] || undefined;
  }

  /** The account's bot token; SECRET_MISSING while none is set. */
  async botToken(accountId: string): Promise<string> {
    const token = await this.token(accountId);
    if (token) return token;
    const name = this.opts.config.channels.telegram!.accounts[accountId]!.botTokenSecret;
    throw new ClawfleetError(
      'SECRET_MISSING',
      `no bot token for telegram account "${accountId}": no "${name}" under "${telegramSecretOf(this.opts.config, accountId)}" ${this.opts.where}`,
    );
  }

  async webhookSecret(accountId: string): Promise<string> {
    return webhookSecretFor(await this.botToken(accountId));
  }

  async botIdentity(accountId: string): Promise<BotIdentity> {
    const token = await this.botToken(accountId);
    // The id is part of the token; the username is asked once per token and process.
    let username = this.usernames.get(token);
    if (!username) {
      username = this.api(token)
        .call<{ username?: string }>('getMe', {})
        .then((me) => me.username);
      username.catch(() => this.usernames.delete(token));
      this.usernames.set(token, username);
    }
    return { id: botIdFromToken(token), username: await username };
  }

  async sender(accountId: string): Promise<ChannelSender> {
    const token = await this.botToken(accountId);
    let sender = this.senders.get(token);
    if (!sender) this.senders.set(token, (sender = telegramSender(this.api(token))));
    return sender;
  }

  async fetchFile(accountId: string, fileId: string, maxBytes: number): Promise<{ bytes: Uint8Array; filePath: string }> {
    const api = this.api(await this.botToken(accountId));
    const file = await api.call<{ file_path?: string; file_size?: number }>('getFile', { file_id: fileId });
    if (file.file_size !== undefined && file.file_size > maxBytes)
      throw new ClawfleetError('MEDIA_TOO_LARGE', `the file is ${file.file_size} bytes, over the ${maxBytes} a bot may download`);
    // Telegram gives no path for a file over its download limit.
    if (!file.file_path) throw new ClawfleetError('MEDIA_TOO_LARGE', 'Telegram gave no download path for the file (it is over the size a bot may download)');
    // A download that runs past maxBytes is refused by the client itself (MEDIA_TOO_LARGE).
    return { bytes: await api.download!(file.file_path, maxBytes), filePath: file.file_path };
  }

  /** A Bot API client for a token of this fleet (local mode's long polling asks with a longer timeout). */
  api(token: string, timeoutMs?: number): BotApi {
    return createBotApi({
      apiRoot: this.opts.config.channels.telegram!.apiRoot,
      token,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}),
    });
  }
}

/** The Telegram bots port, over whatever secret store the control plane has (Secrets Manager, the local file). */
export const telegramPorts: PortFactories = {
  telegram: (cp) => new TelegramAccounts({ config: cp.config, secrets: cp.secrets, where: cp.secretsWhere }),
};
