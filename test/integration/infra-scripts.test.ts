// The after-deploy steps of docs/deploy.md over real wire protocols: filling a secret the
// stack created without a value (Secrets Manager in the emulator), and registering each
// bot's webhook (the fake Bot API).
import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { putSecretValues } from '../../shared/adapters/aws/secrets-manager-writer.ts';
import { parseSecretValues, secretIdFor } from '../../shared/secrets/secret-target.ts';
import { ALLOWED_UPDATES, registerWebhooks } from '../../cli/deploy/webhooks.ts';
import { COMMAND_MENU } from '../../shared/control/commands.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';

const aws = awsTestEnv();
const sm = new SecretsManagerClient(aws);
const read = async (id: string) => JSON.parse((await sm.send(new GetSecretValueCommand({ SecretId: id }))).SecretString!);

describe('set-secret', () => {
  it('fills a secret created without a value, then merges further values into it', async () => {
    const id = secretIdFor('demo', 'agent:fran');
    expect(id).toBe('clawfleet/demo/agents/fran');
    await sm.send(new CreateSecretCommand({ Name: id }));
    expect(await putSecretValues(sm, id, { OPENAI_API_KEY: 'sk-one' })).toEqual({ secretId: id, names: ['OPENAI_API_KEY'] });
    await putSecretValues(sm, id, { GRAPH_TOKEN: 'g-two' });
    expect(await read(id)).toEqual({ OPENAI_API_KEY: 'sk-one', GRAPH_TOKEN: 'g-two' });
    await putSecretValues(sm, id, { GRAPH_TOKEN: 'g-three' }, { merge: false });
    expect(await read(id)).toEqual({ GRAPH_TOKEN: 'g-three' });
  });

  it('refuses input that is not named string values without quoting it', () => {
    expect(() => parseSecretValues('sk-raw-secret-value')).toThrow(/not a JSON object/);
    try {
      parseSecretValues('{"bad name": "sk-do-not-echo"}');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/named string values/);
      expect((err as Error).message).not.toContain('sk-do-not-echo');
    }
    expect(() => secretIdFor('demo', 'clawfleet/other/agents/x')).toThrow(/not telegram, hooks/);
  });
});

describe('register-webhooks', () => {
  let tg: FakeTelegram;
  const tokens: Record<string, string> = { jerry: '1000001:AAjerry-test-token-000000000000000', fran: '1000002:AAfran-test-token-0000000000000000' };
  beforeAll(async () => {
    tg = await startTelegram({ bots: Object.values(tokens).map((token) => ({ token })) });
  });
  afterAll(() => tg?.close());

  it('points each bot at /telegram/<accountId> with its own secret token and only the updates it reads (edits where the account passes them on)', async () => {
    const config = parseConfig({
      fleet: 'demo',
      agents: { list: [{ id: 'jerry', model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }] },
      models: { providers: { openai: { api: 'openai-completions' } } },
      channels: {
        telegram: {
          apiRoot: tg.url,
          accounts: { jerry: { botTokenSecret: 'JERRY_BOT_TOKEN' }, fran: { botTokenSecret: 'FRAN_BOT_TOKEN', editedMessages: 'note' } },
        },
      },
    });
    const registered = await registerWebhooks({ config, functionUrl: 'https://abc123.lambda-url.us-east-1.on.aws/', botToken: async (id) => tokens[id]! });
    expect(registered.map((r) => r.url)).toEqual([
      'https://abc123.lambda-url.us-east-1.on.aws/telegram/jerry',
      'https://abc123.lambda-url.us-east-1.on.aws/telegram/fran',
    ]);
    const calls = tg.calls('setWebhook');
    expect(calls).toHaveLength(2);
    for (const [accountId, token] of Object.entries(tokens)) {
      const call = calls.find((c) => c.token === token)!;
      expect(call.params).toMatchObject({
        url: `https://abc123.lambda-url.us-east-1.on.aws/telegram/${accountId}`,
        secret_token: webhookSecretFor(token),
        allowed_updates: accountId === 'fran' ? [...ALLOWED_UPDATES, 'edited_message', 'message_reaction'] : [...ALLOWED_UPDATES, 'message_reaction'],
      });
    }
    // And each bot's command menu, as Telegram shows it after "/".
    const menus = tg.calls('setMyCommands');
    expect(menus.map((c) => c.token).sort()).toEqual(Object.values(tokens).sort());
    for (const menu of menus) expect(menu.params.commands).toEqual(COMMAND_MENU.map(({ command, description }) => ({ command, description })));
  });
});
