// The one composition of the control plane (shared/control/control-plane.ts): each core's
// deps built from the ports a process hands in, each port built once and only when a core
// uses it, a missing one named; and the Telegram bots over the control plane's secrets
// (shared/adapters/telegram/telegram-accounts.ts) against a fake Bot API speaking its wire format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryAgentRegistry } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { TelegramAccounts } from '../../shared/adapters/telegram/telegram-accounts.ts';
import { loadConfigFile, parseConfig } from '../../shared/config/load.ts';
import { ControlPlane, type ControlPorts, type PortFactories } from '../../shared/control/control-plane.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { SecretStore } from '../../shared/ports.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { faults, start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';

const config = loadConfigFile('clawfleet.json');
const TOKEN = '3000002:AAfran-composition-token-00000000000';

const secretStore = (secrets: Record<string, Record<string, string>>): SecretStore => ({
  async get(id) {
    const s = secrets[id];
    if (!s) throw new ClawfleetError('SECRET_NOT_FOUND', `cannot read secret "${id}": ResourceNotFoundException`);
    return s;
  },
});

/** A plane whose factories record which ports were built, and how often. */
function plane(factories: PortFactories, over: Partial<ConstructorParameters<typeof ControlPlane>[0]> = {}) {
  const built: string[] = [];
  const counted = Object.fromEntries(
    Object.entries(factories)
      .filter(([, make]) => make !== undefined)
      .map(([name, make]) => [
        name,
        (cp: ControlPlane) => {
          built.push(name);
          return (make as (cp: ControlPlane) => unknown)(cp);
        },
      ]),
  ) as PortFactories;
  const cp = new ControlPlane(
    {
      config,
      clock: { now: () => 1_000 },
      log: memoryLogger(),
      component: 'test-fn',
      newId: () => 'id-1',
      newPairingCode: () => 'CODE1',
      secretsWhere: 'in the test store',
      ...over,
    },
    counted,
  );
  return { cp, built };
}

const memoryPorts = (): PortFactories => ({
  queues: () => new InMemoryAgentQueues(),
  dedupe: () => new InMemoryInboundDedupe(() => 1_000),
  sessions: () => new InMemorySessionRegistry(),
  origins: () => new InMemoryInboundOrigins(() => 1_000),
  pairings: () => new InMemoryPairingStore(),
  registry: () => new InMemoryAgentRegistry(),
  depths: () => ({ depth: async () => 0 }),
  telegram: () => ({
    webhookSecret: async () => 's',
    botIdentity: async () => ({ id: 1 }),
    sender: async () => ({ maxTextLength: 1, sendText: async () => {}, sendTyping: async () => {} }),
  }),
  ledger: () => {
    throw new Error('the webhook never builds the delivery ledger');
  },
  metrics: () => {
    throw new Error('the webhook never builds the metrics store');
  },
  scheduler: () => {
    throw new Error('the webhook never builds the scheduler');
  },
  compute: () => ({ setRunning: async () => {}, restart: async () => {} }),
});

describe('the control plane’s composition', () => {
  it('builds only the ports a core uses, each once however many deps ask for it', () => {
    const { cp, built } = plane(memoryPorts());
    const webhook = cp.telegramWebhookDeps();
    cp.telegramWebhookDeps();
    const cron = cp.cronDispatchDeps();
    expect(built.sort()).toEqual(['compute', 'dedupe', 'depths', 'origins', 'pairings', 'queues', 'registry', 'sessions', 'telegram'].sort());
    // The same adapters reach every core.
    expect(cron.queues).toBe(webhook.queues);
    expect(cron.lifecycle).toBe(webhook.lifecycle);
  });

  it('names a port a core needs that the process was not given, and the process', () => {
    const { cp } = plane({ queues: () => new InMemoryAgentQueues() });
    expect(() => cp.cronDispatchDeps()).toThrow(
      expect.objectContaining({ code: 'PORT_NOT_WIRED', message: 'the test-fn control plane was given no "sessions" port' }),
    );
  });

  it('leaves out what a process offers no port for by design: no compute, no waking; no scheduler, no cron requests', () => {
    const { cp } = plane({
      ...memoryPorts(),
      compute: undefined,
      scheduler: undefined,
      ledger: () => ({}) as never,
      metrics: () => ({}) as never,
      relayRates: () => ({}) as never,
      outboxDeadLetters: () => () => ({}) as never,
    });
    expect(cp.lifecycle).toBeUndefined();
    expect('lifecycle' in cp.telegramWebhookDeps()).toBe(false);
    expect('scheduler' in cp.outboxDeps()).toBe(false);
    expect(() => cp.requireLifecycle()).toThrow(expect.objectContaining({ code: 'PORT_NOT_WIRED', message: expect.stringContaining('"compute"') }));
  });

  it('delivers to the local chat only where there is one', async () => {
    const chat = { maxTextLength: 10, sendText: async () => {}, sendTyping: async () => {} };
    expect(await plane({ localChat: () => chat }).cp.channel({ channel: 'local', chatId: 'fran' })).toBe(chat);
    await expect(plane({}).cp.channel({ channel: 'local', chatId: 'fran' })).rejects.toMatchObject({ code: 'CHANNEL_UNSUPPORTED' });
  });

  it('reads the hooks token from the hooks secret, and says where a missing one is set', async () => {
    const hooked = parseConfig({ ...structuredClone(loadConfigFile('clawfleet.json')), hooks: { tokenSecret: 'HOOKS_TOKEN' } });
    const secrets = (values: Record<string, string>): Pick<PortFactories, 'secrets'> => ({
      secrets: () => secretStore({ [`clawfleet/${hooked.fleet}/control/hooks`]: values }),
    });
    expect(await plane(secrets({ HOOKS_TOKEN: 'h'.repeat(40) }), { config: hooked }).cp.hooksToken()).toBe('h'.repeat(40));
    await expect(plane(secrets({}), { config: hooked }).cp.hooksToken()).rejects.toMatchObject({
      code: 'SECRET_MISSING',
      message: `no "HOOKS_TOKEN" under "clawfleet/${hooked.fleet}/control/hooks" in the test store`,
    });
    await expect(plane(secrets({})).cp.hooksToken()).rejects.toMatchObject({ code: 'HOOKS_DISABLED' });
  });

  it('reads a dashboard secret, undefined while the secret does not exist', async () => {
    const secrets: Pick<PortFactories, 'secrets'> = { secrets: () => secretStore({}) };
    expect(await plane(secrets).cp.dashboardSecret('DASHBOARD_TOKEN')).toBeUndefined();
    const broken: Pick<PortFactories, 'secrets'> = {
      secrets: () => ({ get: async () => Promise.reject(new ClawfleetError('SECRET_UNREADABLE', 'AccessDenied')) }),
    };
    await expect(plane(broken).cp.dashboardSecret('DASHBOARD_TOKEN')).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
  });

  it('has a deps builder for every port it offers, so no port is wired for nothing', () => {
    const offered: (keyof ControlPorts)[] = [
      'queues',
      'dedupe',
      'sessions',
      'origins',
      'ledger',
      'pairings',
      'registry',
      'metrics',
      'depths',
      'queueStats',
      'relayRates',
      'secrets',
      'telegram',
      'outboxDeadLetters',
      'delayedRetry',
      'compute',
      'scheduler',
      'localChat',
    ];
    const everything = Object.fromEntries(offered.map((name) => [name, () => ({ get: async () => ({}) })])) as unknown as PortFactories;
    const { cp, built } = plane(everything);
    cp.telegramWebhookDeps();
    cp.hooksDeps();
    cp.outboxBatchDeps();
    cp.cronDispatchDeps();
    cp.queueSampleDeps();
    void cp.secrets;
    void cp.channel({ channel: 'local', chatId: 'x' });
    expect(new Set(built)).toEqual(new Set(offered));
  });
});

describe('Telegram accounts', () => {
  let tg: FakeTelegram;
  beforeAll(async () => {
    tg = await startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
  });
  afterAll(() => tg?.close());

  const accounts = (values: Record<string, string>) => {
    const raw = structuredClone(loadConfigFile('clawfleet.json'));
    raw.channels.telegram!.apiRoot = tg.url;
    const fleet = parseConfig(raw);
    return new TelegramAccounts({ config: fleet, secrets: secretStore({ [`clawfleet/${fleet.fleet}/control/telegram`]: values }), where: 'in the test store' });
  };

  it('asks getMe once per token, however many updates ask at once', async () => {
    const bots = accounts({ FRAN_BOT_TOKEN: TOKEN });
    const before = tg.calls('getMe').length;
    const identities = await Promise.all([bots.botIdentity('fran'), bots.botIdentity('fran'), bots.botIdentity('fran')]);
    expect(identities).toEqual(Array(3).fill({ id: 3000002, username: 'fran_bot' }));
    await bots.botIdentity('fran');
    expect(tg.calls('getMe').length - before).toBe(1);
  });

  it('asks getMe again after it failed, rather than remembering the failure', async () => {
    const bots = accounts({ FRAN_BOT_TOKEN: TOKEN });
    tg.failNext('getMe', { error_code: 502, description: 'Bad Gateway' });
    await expect(bots.botIdentity('fran')).rejects.toMatchObject({ name: 'TelegramApiError', errorCode: 502 });
    expect(await bots.botIdentity('fran')).toEqual({ id: 3000002, username: 'fran_bot' });
  });

  it('derives the webhook secret from the token, and keeps one sender per token', async () => {
    const bots = accounts({ FRAN_BOT_TOKEN: TOKEN });
    expect(await bots.webhookSecret('fran')).toBe(webhookSecretFor(TOKEN));
    expect(await bots.sender('fran')).toBe(await bots.sender('fran'));
  });

  it('turns Telegram’s 429 into a retry no sooner than its retry_after', async () => {
    const sender = await accounts({ FRAN_BOT_TOKEN: TOKEN }).sender('fran');
    tg.failNext('sendMessage', faults.tooManyRequests(5));
    await expect(sender.sendText({ channel: 'telegram', accountId: 'fran', chatId: '42' }, 'hi')).rejects.toMatchObject({
      name: 'RetryLaterError',
      seconds: 5,
    });
  });

  it('says which value is missing from which secret, and where, without a token in sight', async () => {
    const bots = accounts({});
    expect(await bots.token('fran')).toBeUndefined();
    await expect(bots.webhookSecret('fran')).rejects.toMatchObject({
      code: 'SECRET_MISSING',
      message: 'no bot token for telegram account "fran": no "FRAN_BOT_TOKEN" under "clawfleet/demo/control/telegram" in the test store',
    });
    await expect(bots.botIdentity('nobody')).rejects.toMatchObject({ code: 'ACCOUNT_UNKNOWN' });
  });
});
