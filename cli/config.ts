// `clawfleet config validate`: every problem in the fleet config, each with its JSON path.
import { EXIT, parse, plural, str, type Command, choose } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';

const HELP = `Usage: clawfleet config validate [--config clawfleet.json]

Checks the fleet config against the schema and the rules that span several keys, and
prints every problem at once with its path (exit 3), or a summary when it is valid.

  --config <path>   the fleet config (default clawfleet.json)`;

export const configCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['validate'], HELP);
    const p = parse(rest, { config: { type: 'string', default: 'clawfleet.json' } }, HELP, io);
    if (!p) return EXIT.ok;
    const path = str(p.values.config)!;
    const config = loadFleetConfig(path, io);
    const accounts = Object.keys(config.channels.telegram?.accounts ?? {}).length;
    io.out(
      `${path} is valid: fleet "${config.fleet}", ${plural(config.agents.list.length, 'agent')} (${config.agents.list.map((a) => a.id).join(', ')}), ` +
        `${plural(config.bindings.length, 'binding')}, ${plural(accounts, 'telegram account')}, ${plural(config.cron?.jobs.length ?? 0, 'cron job')}`,
    );
    return EXIT.ok;
  },
};
