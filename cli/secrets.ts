// `clawfleet secrets set|list`: an agent's (or the control plane's) named secret values.
// A value is read from standard input, never from the command line, and never printed;
// setting an agent's value restarts the agent (secret-restart.ts).
import { resolve } from 'node:path';
import { agentSecretName, dashboardSecretName, hooksSecretName, telegramSecretName } from '../shared/config/names.ts';
import { fleetSecretNeeds } from '../shared/secrets/fleet-secrets.ts';
import { SECRET_NAME } from '../shared/secrets/secret-values.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { awsSettings } from './aws-env.ts';
import { CliError, EXIT, parse, str, usageError, type CliIO, type Command, choose } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';
import { fileSecretTarget } from './secret-targets.ts';
import { telegramSecretNames, telegramSecretOfValue } from '../shared/secrets/telegram-secrets.ts';

const HELP = `Usage: clawfleet secrets set <NAME> (--agent <id> | --control telegram|hooks|dashboard) [--aws] [--no-restart] < value
       clawfleet secrets list (--agent <id> | --control telegram|hooks|dashboard) [--aws]

set   stores one named value, read from standard input (a trailing newline is dropped), in
      the agent's own secret clawfleet/<fleet>/agents/<id>, or a control-plane secret
      (telegram holds the bot tokens). Locally: clawfleet.secrets.json (--secrets); with
      --aws: AWS Secrets Manager, creating the secret if needed.
      An agent's value then restarts the agent, so its runtime reads it now (one waiting
      for the value starts at once): with --aws by asking its fleet's compute function
      (a sleeping agent stays asleep and reads it when it wakes); locally in the fleet
      running on --state, if one is.
list  prints the names held, and the names the config expects that are missing.
      Values are never printed.

  --agent <id>       the agent whose own secret this is
  --control <part>   a control-plane secret instead: telegram, hooks or dashboard
  --no-restart       store the value only; the agent reads it when it next starts
  --config <path>    the fleet config (default clawfleet.json)
  --secrets <path>   the local secrets file (default clawfleet.secrets.json)
  --state <dir>      the running local fleet's state directory (default .clawfleet)
  --aws              use AWS Secrets Manager (credentials and AWS_REGION from the environment)`;

/** A control-plane secret by its part, and for telegram the value's name: its bot's token lives in one of the fleet's telegram secrets (telegram-secrets.ts). */
const CONTROL = {
  telegram: (config: FleetConfig, name: string | undefined) => (name && telegramSecretOfValue(config, name)) || telegramSecretName(config.fleet),
  hooks: (config: FleetConfig) => hooksSecretName(config.fleet),
  dashboard: (config: FleetConfig) => dashboardSecretName(config.fleet),
} as const;

/** The names the config says this secret should hold (shared/secrets/fleet-secrets.ts). */
function expectedNames(config: FleetConfig, secretId: string, aws: boolean): string[] {
  return [...new Set((fleetSecretNeeds(config, aws ? 'aws' : 'local').find((n) => n.secretId === secretId)?.values ?? []).map((v) => v.name))].sort();
}

export const secretsCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['set', 'list'], HELP);
    const p = parse(
      rest,
      {
        config: { type: 'string', default: 'clawfleet.json' },
        secrets: { type: 'string', default: 'clawfleet.secrets.json' },
        agent: { type: 'string' },
        control: { type: 'string' },
        aws: { type: 'boolean', default: false },
        'no-restart': { type: 'boolean', default: false },
        state: { type: 'string', default: '.clawfleet' },
      },
      HELP,
      io,
      sub === 'set' ? { min: 1, max: 1 } : { min: 0, max: 0 },
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const control = str(p.values.control);
    let secretId: string;
    let agentId: string | undefined;
    if (control !== undefined) {
      if (p.values.agent !== undefined) throw usageError('give either --agent or --control, not both', HELP);
      if (!(control in CONTROL)) throw usageError(`--control must be one of ${Object.keys(CONTROL).join(', ')}`, HELP);
      secretId = CONTROL[control as keyof typeof CONTROL](config, p.positionals[0]);
    } else {
      agentId = requireAgent(config, str(p.values.agent), HELP);
      secretId = agentSecretName(config.fleet, agentId);
    }
    // The AWS SDK loads only for --aws.
    const target = p.values.aws
      ? (await import('./aws-secret-target.ts')).awsSecretTarget(awsSettings(io))
      : fileSecretTarget(resolve(io.cwd, str(p.values.secrets)!));
    const expected = expectedNames(config, secretId, p.values.aws === true);

    if (sub === 'list') {
      // The bot tokens may be in more than one secret (beyond 400 bots): each is listed.
      for (const id of control === 'telegram' ? telegramSecretNames(config) : [secretId]) {
        const held = Object.keys(await target.read(id)).sort();
        io.out(`${id} in ${target.where}:`);
        io.out(held.length ? held.map((n) => `  ${n}`).join('\n') : '  (no values)');
        const missing = expectedNames(config, id, p.values.aws === true).filter((n) => !held.includes(n));
        if (missing.length) io.out(`expected by the config but missing: ${missing.join(', ')}`);
      }
      return EXIT.ok;
    }

    const name = p.positionals[0]!;
    if (!SECRET_NAME.test(name)) throw usageError(`"${name}" is not a secret name: letters, digits and "_", starting with a letter or "_"`, HELP);
    const value = (await io.readStdin()).replace(/\r?\n$/, '');
    if (value === '')
      throw new CliError(EXIT.usage, 'no value on standard input; pipe it in, e.g. `printf %s "$KEY" | clawfleet secrets set NAME --agent <id>`');
    const values = await target.read(secretId);
    const replaced = name in values;
    await target.write(secretId, { ...values, [name]: value });
    io.out(`${replaced ? 'replaced' : 'stored'} ${name} in ${secretId} (${target.where})`);
    if (expected.length && !expected.includes(name)) io.out(`note: the config does not refer to ${name} for this secret`);
    if (agentId && p.values['no-restart'])
      io.out(`the agent reads it when its runtime starts: clawfleet runtime restart --agent ${agentId}${p.values.aws ? ' --aws' : ''}`);
    else if (agentId) {
      const { restartAfterSecretSet } = await import('./secret-restart.ts');
      await restartAfterSecretSet(config.fleet, agentId, p.values.aws ? { aws: awsSettings(io) } : { stateDir: str(p.values.state)! }, io);
    }
    return EXIT.ok;
  },
};
