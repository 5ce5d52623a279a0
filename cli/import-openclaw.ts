// `clawfleet import-openclaw <openclaw.json>`: converts an OpenClaw config (JSON5) and its
// cron jobs into clawfleet.json, lists the secrets to set (names only: values are never
// copied) and everything it could not convert, then validates the result.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import JSON5 from 'json5';
import { parseConfig } from '../shared/config/load.ts';
import { ConfigError } from '../shared/errors.ts';
import { CliError, EXIT, parse, plural, str, usageError, type CliIO, type Command } from './command.ts';
import { convertOpenclaw, FALLBACK_MODEL, sanitizeId } from './openclaw/convert.ts';

const HELP = `Usage: clawfleet import-openclaw <openclaw.json> [--fleet <name>] [--out clawfleet.json] [--cron-jobs <jobs.json>] [--force]

Converts an OpenClaw config (JSON5) into a clawfleet config: agents (agents.list or
agents.entries), models and providers, bindings, channels.telegram (bot tokens become
secret names), cron jobs, hooks and MCP servers. Prints the secrets to set and everything
it could not convert, with its path. Secret values are never written to the output.

  --fleet <name>        the fleet name (default "openclaw")
  --out <path>          where to write (default: print to standard output)
  --cron-jobs <path>    OpenClaw's cron job store (default: cron/jobs.json beside the config, if present)
  --default-model <m>   the model for agents the OpenClaw config gives none (default ${FALLBACK_MODEL})
  --force               overwrite --out if it exists`;

function readJson5(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(EXIT.failed, `cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  try {
    return JSON5.parse(text);
  } catch (err) {
    throw new CliError(EXIT.invalid, `${path} is not valid JSON5: ${(err as Error).message}`);
  }
}

export interface ImportResult {
  text: string;
  valid: boolean;
}

export function importOpenclaw(configPath: string, opts: { fleet: string; cronJobsPath?: string; defaultModel?: string }, io: Pick<CliIO, 'err'>): ImportResult {
  const input = readJson5(configPath, 'OpenClaw config');
  const cronPath = opts.cronJobsPath ?? join(dirname(configPath), 'cron', 'jobs.json');
  const cronJobs = opts.cronJobsPath || existsSync(cronPath) ? readJson5(cronPath, 'cron job store') : undefined;
  let conversion;
  try {
    conversion = convertOpenclaw(input, { fleet: opts.fleet, defaultModel: opts.defaultModel, cronJobs, cronSource: cronJobs === undefined ? undefined : cronPath });
  } catch (err) {
    throw new CliError(EXIT.invalid, `${configPath}: ${(err as Error).message}`);
  }
  const { config, secrets, notConverted, notes } = conversion;
  const report: string[] = [];
  const agents = (config.agents as { list: { id: string }[] }).list;
  report.push(`converted ${configPath}: ${plural(agents.length, 'agent')} (${agents.map((a) => a.id).join(', ')})${cronJobs !== undefined ? `, cron jobs from ${cronPath}` : ''}`);
  for (const n of notes) report.push(`note: ${n}`);
  if (secrets.length) {
    report.push('\nsecrets to set (values were not copied; read from standard input):');
    for (const s of secrets) {
      const scope = 'agent' in s.scope ? `--agent ${s.scope.agent}` : `--control ${s.scope.control}`;
      report.push(`  clawfleet secrets set ${s.name} ${scope}    (was ${s.from})`);
    }
  }
  if (notConverted.length) {
    report.push(`\nnot converted (${notConverted.length}):`);
    for (const n of notConverted) report.push(`  ${n.path}: ${n.reason}`);
  } else report.push('\neverything was converted');

  let valid = true;
  try {
    parseConfig(config, 'the converted config');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    valid = false;
    report.push(`\n${err.message}\nfix these in the output before using it.`);
  }
  io.err(report.join('\n'));
  return { text: `${JSON.stringify(config, null, 2)}\n`, valid };
}

export const importOpenclawCommand: Command = {
  async run(args, io) {
    const p = parse(
      args,
      { fleet: { type: 'string', default: 'openclaw' }, out: { type: 'string' }, 'cron-jobs': { type: 'string' }, 'default-model': { type: 'string' }, force: { type: 'boolean', default: false } },
      HELP,
      io,
      { min: 1, max: 1 },
    );
    if (!p) return EXIT.ok;
    const fleet = str(p.values.fleet)!;
    if (sanitizeId(fleet) !== fleet) throw usageError(`--fleet must be 1–24 chars of a-z, 0-9 and "-", starting with a letter (like "${sanitizeId(fleet)}")`, HELP);
    const out = str(p.values.out);
    const outPath = out ? resolve(io.cwd, out) : undefined;
    if (outPath && existsSync(outPath) && !p.values.force) throw new CliError(EXIT.failed, `${out} exists; pass --force to overwrite it`);
    const cronJobs = str(p.values['cron-jobs']);
    const result = importOpenclaw(resolve(io.cwd, p.positionals[0]!), { fleet, defaultModel: str(p.values['default-model']), ...(cronJobs ? { cronJobsPath: resolve(io.cwd, cronJobs) } : {}) }, io);
    if (outPath) {
      writeFileSync(outPath, result.text);
      io.err(`\nwrote ${out}`);
    } else io.out(result.text.trimEnd());
    return result.valid ? EXIT.ok : EXIT.invalid;
  },
};
