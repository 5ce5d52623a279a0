// Where each Telegram account's bot token is kept: the control plane's telegram secret, in
// shards once a fleet has more bots than one secret should hold. Secrets Manager caps a value
// at 64 KB, about 900 tokens with their names; a shard holds the tokens of at most 400
// accounts on average, so even an uneven share stays far below it. The one owner of that
// path: the bots port (both modes), the fleet's secret needs, the CLI, the deploy and the CDK
// app all ask here. Shard 0 keeps the name a fleet had before shards
// (`clawfleet/<fleet>/control/telegram`), so a fleet of up to 400 bots has that one secret.
import { telegramSecretName } from '../config/names.ts';
import type { FleetConfig } from '../config/schema.ts';

/** Accounts per telegram secret, on average, before the fleet gets another. */
export const ACCOUNTS_PER_TELEGRAM_SECRET = 400;

/** How many telegram secrets the fleet has. */
export function telegramSecretCount(config: FleetConfig): number {
  const accounts = Object.keys(config.channels.telegram?.accounts ?? {}).length;
  return Math.max(1, Math.ceil(accounts / ACCOUNTS_PER_TELEGRAM_SECRET));
}

/** Every telegram secret of the fleet, shard 0 first. */
export function telegramSecretNames(config: FleetConfig): string[] {
  return Array.from({ length: telegramSecretCount(config) }, (_, shard) => telegramSecretName(config.fleet, shard));
}

/** The secret that holds `accountId`'s bot token. */
export function telegramSecretOf(config: FleetConfig, accountId: string): string {
  return telegramSecretName(config.fleet, telegramShard(accountId, telegramSecretCount(config)));
}

/** The secret that holds the value named `name` (a botTokenSecret), if an account of the config names it. */
export function telegramSecretOfValue(config: FleetConfig, name: string): string | undefined {
  const account = Object.entries(config.channels.telegram?.accounts ?? {}).find(([, a]) => a.botTokenSecret === name)?.[0];
  return account === undefined ? undefined : telegramSecretOf(config, account);
}

/** The accounts each telegram secret holds the tokens of, by secret name. */
export function telegramAccountsBySecret(config: FleetConfig): Map<string, string[]> {
  const by = new Map(telegramSecretNames(config).map((name) => [name, [] as string[]]));
  for (const id of Object.keys(config.channels.telegram?.accounts ?? {})) by.get(telegramSecretOf(config, id))!.push(id);
  return by;
}

/** Every bot token by its botTokenSecret name, read from each telegram secret with `read`. */
export async function readTelegramTokens(config: FleetConfig, read: (secretId: string) => Promise<Record<string, string>>): Promise<Record<string, string>> {
  const values = await Promise.all(telegramSecretNames(config).map(read));
  return Object.assign({}, ...values);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/**
 * An account's shard: jump consistent hash (Lamping and Veach, 2014) of its id's FNV-1a hash.
 * When the fleet grows from n to n+1 secrets, only the accounts that land in the new one move
 * (about 1 in n+1), and their tokens are what a deploy asks for again.
 */
export function telegramShard(accountId: string, shards: number): number {
  let key = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(accountId)) key = ((key ^ BigInt(byte)) * FNV_PRIME) & MASK;
  let b = -1;
  let j = 0;
  while (j < shards) {
    b = j;
    key = (key * 2862933555777941757n + 1n) & MASK;
    j = Math.floor((b + 1) * (2 ** 31 / Number((key >> 33n) + 1n)));
  }
  return b;
}
