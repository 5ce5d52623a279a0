// Fills a clawfleet secret from stdin, so values never enter a shell history, a template
// or a log:
//   npx tsx scripts/set-secret.ts telegram JERRY_BOT_TOKEN     (stdin: the raw value)
//   npx tsx scripts/set-secret.ts agent:fran < values.json      (stdin: {"NAME": "value"})
// Options: --config <clawfleet.json> (default ./clawfleet.json), --replace (drop values
// not given; the default merges). Uses the usual AWS credentials, region and endpoint.
import { parseArgs } from 'node:util';
import { secretsManagerClient } from '../shared/adapters/aws/clients.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { telegramSecretOfValue } from '../shared/secrets/telegram-secrets.ts';
import { putSecretValues } from '../shared/adapters/aws/secrets-manager-writer.ts';
import { parseSecretValues, secretIdFor } from '../shared/secrets/secret-target.ts';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the value, then press Enter and Ctrl-D:\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const { values: flags, positionals } = parseArgs({
    allowPositionals: true,
    options: { config: { type: 'string', default: 'clawfleet.json' }, replace: { type: 'boolean', default: false } },
  });
  const [target, key] = positionals;
  if (!target || positionals.length > 2) {
    throw new Error('usage: set-secret.ts <telegram|hooks|dashboard|agent:<id>|secret name> [NAME] [--replace] [--config clawfleet.json]');
  }
  const config = loadConfigFile(flags.config);
  const input = await readStdin();
  // A single named value is taken as typed, minus the newline that ends the line.
  const values = key ? parseSecretValues(JSON.stringify({ [key]: input.replace(/\r?\n$/, '') })) : parseSecretValues(input);
  if (key && !values[key]) throw new Error('stdin was empty');
  // Bot tokens go to the telegram secret that holds their account's (more than one beyond 400 bots).
  const byTarget = new Map<string, Record<string, string>>();
  for (const [name, value] of Object.entries(values)) {
    const secretId = (target === 'telegram' && telegramSecretOfValue(config, name)) || secretIdFor(config.fleet, target);
    byTarget.set(secretId, { ...byTarget.get(secretId), [name]: value });
  }
  for (const [secretId, some] of byTarget) {
    const result = await putSecretValues(secretsManagerClient(), secretId, some, { merge: !flags.replace });
    process.stdout.write(`${result.secretId} now holds: ${result.names.join(', ')}\n`);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`set-secret: ${err.message}\n`);
  process.exit(1);
});
