// After `cdk deploy` and setting the Telegram secret: points every bot of the fleet at
// the deployed webhook.
//   npx tsx scripts/register-webhooks.ts [--config clawfleet.json] [--url <TelegramWebhookUrl>]
// Without --url, the URL is read from the outputs file `cdk deploy --outputs-file
// cdk-outputs.json` wrote (--outputs-file to name another).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { secretsManagerClient } from '../shared/adapters/aws/clients.ts';
import { SecretsManagerStore } from '../shared/adapters/aws/secrets-manager-store.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { controlPlaneStackName } from '../shared/config/names.ts';
import { readTelegramTokens, telegramSecretOf } from '../shared/secrets/telegram-secrets.ts';
import { registerWebhooks } from '../cli/deploy/webhooks.ts';

async function main(): Promise<void> {
  const { values: flags } = parseArgs({
    options: {
      config: { type: 'string', default: 'clawfleet.json' },
      url: { type: 'string' },
      'outputs-file': { type: 'string', default: 'cdk-outputs.json' },
    },
  });
  const config = loadConfigFile(flags.config);
  const functionUrl = flags.url ?? stackOutput(flags['outputs-file'], controlPlaneStackName(config.fleet), 'TelegramWebhookUrl');
  const store = new SecretsManagerStore(secretsManagerClient());
  const secrets = await readTelegramTokens(config, (id) => store.get(id));
  const accounts = config.channels.telegram?.accounts ?? {};
  const registered = await registerWebhooks({
    config,
    functionUrl,
    botToken: async (accountId) => {
      const name = accounts[accountId]!.botTokenSecret;
      const token = secrets[name];
      if (!token) throw new Error(`${telegramSecretOf(config, accountId)} has no value ${name}: set it first (scripts/set-secret.ts telegram ${name})`);
      return token;
    },
  });
  for (const r of registered) process.stdout.write(`${r.accountId}: ${r.url}\n`);
}

function stackOutput(file: string, stackName: string, key: string): string {
  let outputs: Record<string, Record<string, string>>;
  try {
    outputs = z.record(z.string(), z.record(z.string(), z.string())).parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    throw new Error(`cannot read ${file}: run \`npx cdk deploy --all --outputs-file ${file}\`, or pass --url`);
  }
  const value = outputs[stackName]?.[key];
  if (!value) throw new Error(`${file} has no ${stackName}.${key}: deploy the control plane first, or pass --url`);
  return value;
}

main().catch((err: Error) => {
  process.stderr.write(`register-webhooks: ${err.message}\n`);
  process.exit(1);
});
