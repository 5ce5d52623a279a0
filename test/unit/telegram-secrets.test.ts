// Where bot tokens live once a fleet has more bots than one secret holds: one secret up to 400
// accounts (the name fleets always had), more beyond, each account in one of them for good
// while the count holds, and only about one in n+1 moving when the fleet gets its n+1th.
import { describe, expect, it } from 'vitest';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { TelegramAccounts } from '../../shared/adapters/telegram/telegram-accounts.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { fleetSecretNeeds } from '../../shared/secrets/fleet-secrets.ts';
import {
  readTelegramTokens,
  telegramAccountsBySecret,
  telegramSecretCount,
  telegramSecretNames,
  telegramSecretOf,
  telegramSecretOfValue,
  telegramShard,
} from '../../shared/secrets/telegram-secrets.ts';
import { fleetOf } from '../infra/synth-fleet.ts';

/** The 1,000-agent fleet's config, one bot per agent. */
const thousand = parseConfig(fleetOf(1000));

describe('telegram secrets', () => {
  it('are one, named as always, up to 400 bots, and three for 1,000 bots, each holding a third of them or so, far under 64 KB', () => {
    expect(telegramSecretNames(parseConfig(fleetOf(400)))).toEqual(['clawfleet/big/control/telegram']);
    expect(telegramSecretNames(thousand)).toEqual(['clawfleet/big/control/telegram', 'clawfleet/big/control/telegram-1', 'clawfleet/big/control/telegram-2']);
    const sizes = [...telegramAccountsBySecret(thousand).values()].map((a) => a.length);
    expect(sizes.reduce((a, b) => a + b)).toBe(1000);
    for (const n of sizes) expect(n).toBeGreaterThan(250);
    // A full secret: the longest value names of this fleet with Telegram's 46-character tokens.
    const biggest = Math.max(...sizes);
    const bytes = JSON.stringify(
      Object.fromEntries(Array.from({ length: biggest }, (_, i) => [`A${i}_BOT_TOKEN`, `${1_000_000_000 + i}:${'A'.repeat(35)}`])),
    ).length;
    expect(bytes).toBeLessThan((64 * 1024) / 2);
  });

  it('put an account in the same secret every time, and move only the ones that land in a new secret when the fleet gets one', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `a${i}`);
    expect(ids.map((id) => telegramShard(id, 3))).toEqual(ids.map((id) => telegramShard(id, 3)));
    expect(ids.every((id) => telegramShard(id, 1) === 0)).toBe(true);
    const moved = ids.filter((id) => telegramShard(id, 3) !== telegramShard(id, 4));
    expect(moved.every((id) => telegramShard(id, 4) === 3)).toBe(true);
    expect(moved.length / ids.length).toBeGreaterThan(0.2);
    expect(moved.length / ids.length).toBeLessThan(0.3);
  });

  it('are read by the bots port where each account’s token is, and named in its error when it is not', async () => {
    const secrets = new InMemorySecretStore(
      Object.fromEntries(
        [...telegramAccountsBySecret(thousand)].map(([secret, accounts]) => [
          secret,
          Object.fromEntries(accounts.map((id) => [`${id.toUpperCase()}_BOT_TOKEN`, `${id}:token`])),
        ]),
      ),
    );
    const bots = new TelegramAccounts({ config: thousand, secrets, where: 'in memory' });
    for (const id of ['a0', 'a1', 'a500', 'a999']) expect(await bots.token(id)).toBe(`${id}:token`);
    expect(telegramSecretCount(thousand)).toBe(3);
    const tokens = await readTelegramTokens(thousand, (id) => secrets.get(id));
    expect(Object.keys(tokens)).toHaveLength(1000);
    expect(telegramSecretOfValue(thousand, 'A999_BOT_TOKEN')).toBe(telegramSecretOf(thousand, 'a999'));
    expect(telegramSecretOfValue(thousand, 'NOBODYS_TOKEN')).toBeUndefined();
    const empty = new TelegramAccounts({
      config: thousand,
      secrets: new InMemorySecretStore(Object.fromEntries(telegramSecretNames(thousand).map((s) => [s, {}]))),
      where: 'in memory',
    });
    await expect(empty.botToken('a999')).rejects.toThrow(`no "A999_BOT_TOKEN" under "${telegramSecretOf(thousand, 'a999')}" in memory`);
  });

  it('each need their own accounts’ tokens, for clawfleet deploy to ask and secrets list to report', () => {
    const needs = fleetSecretNeeds(thousand).filter((n) => n.label.startsWith('telegram'));
    expect(needs.map((n) => n.label)).toEqual(['telegram', 'telegram-1', 'telegram-2']);
    expect(needs.flatMap((n) => n.values).length).toBe(1000);
    for (const need of needs) for (const v of need.values) expect(telegramSecretOfValue(thousand, v.name)).toBe(need.secretId);
  });
});
