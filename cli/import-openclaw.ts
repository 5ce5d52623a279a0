// `clawfleet import-openclaw <openclaw.json>`: converts an OpenClaw config (JSON5) and its
// cron jobs into clawfleet.json, lists the secrets to set (names only: values are never
// copied) and everything it could not convert, then validates the result. With
// --workspaces it also carries each agent's workspace and sessions into the local fleet.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import JSON5 from 'json5';
import { parseConfig } from '../shared/config/load.ts';
import { sourceExcerpt } from '../shared/config/source-excerpt.ts';
import { ConfigError } from '../shared/errors.ts';
import { CliError, EXIT, parse, plural, str, usageError, type CliIO, type Command } from './command.ts';
import { convertOpenclaw, FALLBACK_MODEL, sanitizeId } from './openclaw/convert.ts';

const HELP = `Usage: clawfleet import-openclaw <openclaw.json> [--fleet <name>] [--out clawfleet.json] [--cron-jobs <jobs.json>]
                                 [--workspaces [--openclaw-state <dir>] [--state .clawfleet]] [--runtime native|openclaw] [--force]

Converts an OpenClaw config (JSON5) into a clawfleet config: agents (agents.list or
agents.entries), models and providers, bindings, channels.telegram (bot tokens become
secret names; streaming, ack reactions, reply threading and native commands per channel
and account), cron jobs, hooks and MCP servers. Prints the secrets to set and everything
it could not convert, with its path. Secret values are never written to the output.

With --workspaces, each agent's workspace (its configured path, or where OpenClaw puts it)
is copied into <state>/workspaces/<id> — AGENTS.md, SOUL.md, USER.md, IDENTITY.md, MEMORY.md,
memory/, skills/ and the agent's own files — and its OpenClaw sessions become clawfleet
transcripts where their session keys map (the rest are kept as files in openclaw-sessions/).
Nothing is written while anything would be overwritten; --force replaces what differs.
Stop the OpenClaw gateway first, and do not run the clawfleet fleet on <state> meanwhile.

  --fleet <name>          the fleet name (default "openclaw")
  --out <path>            where to write (default: print to standard output)
  --cron-jobs <path>      OpenClaw's cron job store (default: cron/jobs.json beside the config, if present)
  --default-model <m>     the model for agents the OpenClaw config gives none (default ${FALLBACK_MODEL})
  --workspaces            carry workspaces and sessions into the local fleet
  --openclaw-state <dir>  OpenClaw's state directory (default: $OPENCLAW_STATE_DIR, else the config's folder)
  --state <dir>           the clawfleet state directory (default .clawfleet)
  --runtime <kind>        "native" (default): the agents run on clawfleet's runtime; "openclaw": each keeps
                          running on OpenClaw, as a managed one-agent gateway (runtime.kind "openclaw",
                          1 vCPU / 2048 MB, locally and on AWS — docs/runtime.md); the report then says,
                          per agent, what its gateway starts without (its OpenClaw sessions and memory
                          index, plugins: not carried)
  --force                 overwrite --out if it exists, and workspace files that differ`;

function readJson5(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(EXIT.invalid, `cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  try {
    return JSON5.parse(text);
  } catch (err) {
    // json5 says "JSON5: invalid character 'x' at 3:14" and carries the place: said as the config's own syntax errors are.
    const { lineNumber, columnNumber, message } = err as SyntaxError & { lineNumber?: number; columnNumber?: number };
    if (lineNumber === undefined || columnNumber === undefined) throw new CliError(EXIT.invalid, `${path} is not valid JSON5: ${message}`);
    const problem = message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    throw new CliError(
      EXIT.invalid,
      `${path} is not valid JSON5: line ${lineNumber}, column ${columnNumber}: ${problem}\n${sourceExcerpt(text, lineNumber, columnNumber).replace(/^/gm, '    ')}`,
    );
  }
}

export interface ImportResult {
  text: string;
  valid: boolean;
}

export function importOpenclaw(
  configPath: string,
  opts: { fleet: string; cronJobsPath?: string; defaultModel?: string; workspaces?: boolean; runtime?: 'native' | 'openclaw' },
  io: Pick<CliIO, 'err'>,
): ImportResult & { input: unknown } {
  const input = readJson5(configPath, 'OpenClaw config');
  const cronPath = opts.cronJobsPath ?? join(dirname(configPath), 'cron', 'jobs.json');
  const cronJobs = opts.cronJobsPath || existsSync(cronPath) ? readJson5(cronPath, 'cron job store') : undefined;
  let conversion;
  try {
    conversion = convertOpenclaw(input, {
      fleet: opts.fleet,
      defaultModel: opts.defaultModel,
      cronJobs,
      cronSource: cronJobs === undefined ? undefined : cronPath,
      workspaces: opts.workspaces,
      runtime: opts.runtime,
    });
  } catch (err) {
    throw new CliError(EXIT.invalid, `${configPath}: ${(err as Error).message}`);
  }
  const { config, secrets, notConverted, notes } = conversion;
  const report: string[] = [];
  const agents = (config.agents as { list: { id: string }[] }).list;
  report.push(
    `converted ${configPath}: ${plural(agents.length, 'agent')} (${agents.map((a) => a.id).join(', ')})${cronJobs !== undefined ? `, cron jobs from ${cronPath}` : ''}`,
  );
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
  return { text: `${JSON.stringify(config, null, 2)}\n`, valid, input };
}

export const importOpenclawCommand: Command = {
  async run(args, io) {
    const p = parse(
      args,
      {
        fleet: { type: 'string', default: 'openclaw' },
        out: { type: 'string' },
        'cron-jobs': { type: 'string' },
        'default-model': { type: 'string' },
        force: { type: 'boolean', default: false },
        workspaces: { type: 'boolean', default: false },
        runtime: { type: 'string', default: 'native' },
        'openclaw-state': { type: 'string' },
        state: { type: 'string', default: '.clawfleet' },
      },
      HELP,
      io,
      { min: 1, max: 1 },
    );
    if (!p) return EXIT.ok;
    const fleet = str(p.values.fleet)!;
    if (sanitizeId(fleet) !== fleet)
      throw usageError(`--fleet must be 1–24 chars of a-z, 0-9 and "-", starting with a letter (like "${sanitizeId(fleet)}")`, HELP);
    const out = str(p.values.out);
    const outPath = out ? resolve(io.cwd, out) : undefined;
    if (outPath && existsSync(outPath) && !p.values.force) throw new CliError(EXIT.failed, `${out} exists; pass --force to overwrite it`);
    const cronJobs = str(p.values['cron-jobs']);
    const workspaces = p.values.workspaces === true;
    const runtime = str(p.values.runtime);
    if (runtime !== 'native' && runtime !== 'openclaw') throw usageError(`--runtime must be "native" or "openclaw" (got "${runtime}")`, HELP);
    if (!workspaces && runtime !== 'openclaw' && p.values['openclaw-state'] !== undefined)
      throw usageError('--openclaw-state goes with --workspaces or --runtime openclaw', HELP);
    const configPath = resolve(io.cwd, p.positionals[0]!);
    const result = importOpenclaw(
      configPath,
      { fleet, workspaces, runtime, defaultModel: str(p.values['default-model']), ...(cronJobs ? { cronJobsPath: resolve(io.cwd, cronJobs) } : {}) },
      io,
    );
    const openclawState = resolve(io.cwd, str(p.values['openclaw-state']) ?? io.env.OPENCLAW_STATE_DIR ?? dirname(configPath));
    // Kept on OpenClaw: what each agent's managed gateway starts without, said before anything is written.
    if (runtime === 'openclaw') {
      const { keptOnOpenclawReport } = await import('./openclaw/kept-on-openclaw.ts');
      io.err(
        keptOnOpenclawReport(result.input as Record<string, unknown>, configPath, {
          openclawState,
          home: io.env.HOME,
          workspaceEnv: io.env.OPENCLAW_WORKSPACE_DIR,
          workspaces,
        }).join('\n'),
      );
    }
    // Every workspace is planned before anything is written, --out included.
    const carried = workspaces ? await planWorkspaces(configPath, result.input, openclawState, str(p.values.state)!, p.values.force === true, io) : undefined;
    if (outPath) {
      writeFileSync(outPath, result.text);
      io.err(`\nwrote ${out}`);
    } else io.out(result.text.trimEnd());
    if (carried) await carried.apply();
    return result.valid ? EXIT.ok : EXIT.invalid;
  },
};

/** Plans the workspace import and refuses it whole on any conflict; `apply` writes it under the state directory's lock. */
async function planWorkspaces(
  configPath: string,
  input: unknown,
  openclawDir: string,
  state: string,
  force: boolean,
  io: CliIO,
): Promise<{ apply(): Promise<void> }> {
  const { planWorkspaceImport, applyWorkspaceImport, conflictsOf, importSummary } = await import('./openclaw/workspaces.ts');
  const [{ lockStateDir }, { holdStateUmask }] = await Promise.all([import('../local/state-lock.ts'), import('../local/state-modes.ts')]);
  const stateDir = resolve(io.cwd, state);
  const imports = await planWorkspaceImport(input as Record<string, unknown>, configPath, {
    openclawState: openclawDir,
    stateDir,
    force,
    home: io.env.HOME,
    workspaceEnv: io.env.OPENCLAW_WORKSPACE_DIR,
  });
  const conflicts = conflictsOf(imports);
  if (conflicts.length) {
    io.err(importSummary(imports, false));
    throw new CliError(
      EXIT.failed,
      `nothing was written: ${conflicts.length} file${conflicts.length === 1 ? '' : 's'} would be overwritten (pass --force to replace them):\n${conflicts
        .slice(0, 20)
        .map((c) => `  ${c}`)
        .join('\n')}${conflicts.length > 20 ? `\n  … and ${conflicts.length - 20} more` : ''}`,
    );
  }
  return {
    async apply() {
      // The fleet's own umask: whatever is created here (the lock file too) is the owner's alone.
      const releaseUmask = holdStateUmask();
      try {
        mkdirSync(stateDir, { recursive: true, mode: 0o700 });
        // A fleet running on the state directory holds this lock: its runtimes must not see half a workspace.
        const lock = await lockStateDir(stateDir, { pid: process.pid, startedAt: Date.now() }).catch((err: unknown) => {
          throw new CliError(EXIT.failed, `${(err as Error).message}\nThe workspaces were not written.`);
        });
        try {
          await applyWorkspaceImport(imports);
        } finally {
          lock.release();
        }
      } finally {
        releaseUmask();
      }
      io.err(`\nworkspaces${importSummary(imports, true)}`);
    },
  };
}
