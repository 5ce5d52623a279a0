// `clawfleet start` (= `npm start`): runs the fleet on this machine until Ctrl-C, printing
// where the dashboard is and, as it goes, what each agent is doing.
import { fleetFileArgs, giveKeyHint } from '../local/model-key-hint.ts';
import { join, resolve } from 'node:path';
import { createLogger } from '../shared/log.ts';
import { startLocalFleet } from '../local/fleet.ts';
import { prettyLine, shownByDefault } from '../local/pretty-log.ts';
import { parseAllowedHost } from '../shared/http/request-origin.ts';
import { ensureRuntimeBundle } from '../local/runtime-entry.ts';
import { CliError, commonOptions, EXIT, parse, plural, str, usageError, type CliIO, type Command } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { WarningsOnce } from './start-warnings.ts';

const HELP = `Usage: clawfleet start [--config clawfleet.json] [--secrets clawfleet.secrets.json] [--port 8787] [--state .clawfleet] [--allow-host <name>]... [--containers] [--verbose]
       npm start -- [the same options]

Runs the fleet on this machine: the control plane on 127.0.0.1 (webhooks, dashboard with a
chat box, the admin API the other commands use), each agent's runtime as its own process
with only its own secrets, Telegram by long polling for accounts with a bot token.
Queues, registry and chat survive a restart in <state>/state.db; runtime logs go to
<state>/logs/<agent>.log. Agents without a model key answer with a clearly labelled
offline model. Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the fleet and every process it
started; run through npm, it also stops when npm goes.

  --config <path>   the fleet config (default clawfleet.json)
  --secrets <path>  the local secrets file: model keys, bot tokens, DASHBOARD_TOKEN
                    (default clawfleet.secrets.json)
  --port <n>        HTTP port on 127.0.0.1 (default 8787, or $PORT; 0 picks a free one)
  --state <dir>     where the fleet keeps its state.db, workspaces, logs and tokens
                    (default .clawfleet)
  --allow-host <name>
                    a name besides 127.0.0.1, localhost and [::1] that requests may
                    address the server by (a reverse proxy's or tunnel's); repeatable.
                    Requests naming any other host are refused (DNS rebinding)
  --containers      run each agent's runtime as a container of the runtime image (the
                    stage AWS runs for it, built at start; its profile's cpus and memory
                    as limits) instead of a process; needs a Docker engine. The config's
                    local.runtimes says the same ("containers"; default "processes")
  --verbose         print whole JSON log lines, every one (without it, a chat turn is one
                    line: the runtime's "turn answered"; warnings and errors always show)`;

/** The longest a warning given while the fleet starts waits for the runtimes that have not said they are ready. */
const WARNINGS_HOLD_MS = 10_000;

/** The options npm takes for itself when they come before `--` in `npm start --port 8788`. */
const NPM_SWALLOWED = ['config', 'secrets', 'port', 'state', 'allow-host'] as const;

export const startCommand: Command = {
  async run(args, io) {
    npmSwallowed(args, io);
    const p = parse(
      args,
      {
        config: { type: 'string', default: 'clawfleet.json' },
        secrets: { type: 'string', default: 'clawfleet.secrets.json' },
        port: { type: 'string', default: io.env.PORT ?? '8787' },
        state: commonOptions.state,
        'allow-host': { type: 'string', multiple: true, default: [] },
        containers: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
      },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    // Listening from here on: a signal while the agents start stops them once they have.
    const stopRequested = io.interrupted();
    const port = Number(str(p.values.port));
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(EXIT.usage, `--port must be a port number, got "${str(p.values.port)}"`);
    let allowedHosts: string[];
    try {
      // A repeatable option: parseArgs gives a list (Parsed's type knows single values only).
      const given: unknown = p.values['allow-host'];
      allowedHosts = (Array.isArray(given) ? (given as string[]) : []).map(parseAllowedHost);
    } catch (err) {
      throw usageError(`--allow-host: ${(err as Error).message}`, HELP);
    }
    const configPath = str(p.values.config)!;
    const config = loadFleetConfig(configPath, io); // every config problem, before anything starts

    const print = (prefix: string, line: Record<string, unknown>) => {
      if (p.values.verbose) io.out(`[${prefix}] ${JSON.stringify(line)}`);
      else if (shownByDefault(line)) io.out(prettyLine(prefix, line));
    };
    // Without --verbose, each runtime warning once for the fleet, naming its agents (not once per agent and restart).
    const warnings = new WarningsOnce({ agents: config.agents.list.map((a) => a.id), print, holdMs: WARNINGS_HOLD_MS });
    const printRuntime = (agentId: string, line: Record<string, unknown>) => {
      if (!p.values.verbose && warnings.take(agentId, line)) return;
      print(agentId, line);
    };
    const log = createLogger({ component: 'local' }, (json) => print('control', JSON.parse(json) as Record<string, unknown>));
    io.out('clawfleet: starting the control plane and the agents…');
    // Runtimes start from the runtime bundle; rebuilt first if the sources changed since.
    await ensureRuntimeBundle();
    let fleet;
    try {
      fleet = await startLocalFleet({
        configPath: resolve(io.cwd, configPath),
        secretsPath: resolve(io.cwd, str(p.values.secrets)!),
        stateDir: resolve(io.cwd, str(p.values.state)!),
        port,
        allowedHosts,
        ...(p.values.containers ? { runtimes: 'containers' as const } : {}),
        log,
        onRuntimeLine: printRuntime,
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new CliError(
          EXIT.failed,
          `port ${port} is in use (another \`clawfleet start\`?); pick another: npm start -- --port ${port + 1} (or clawfleet start --port ${port + 1})`,
        );
      }
      throw err;
    }

    const agents = fleet.cp.config.agents.list;
    io.out(`\nclawfleet: fleet "${fleet.cp.config.fleet}" with ${plural(agents.length, 'agent')} (${agents.map((a) => a.id).join(', ')})`);
    io.out(`  dashboard and chat: ${fleet.url}/`);
    // The token itself stays off the terminal (and out of scrollback and logs): say where it is,
    // and the command whose link signs in without copying it.
    const state = str(p.values.state)!;
    const files = { config: configPath, secrets: str(p.values.secrets)!, state };
    const linkCommand = `npx clawfleet dashboard${fleetFileArgs(files, io.cwd, ['state'])}`;
    io.out(
      (await fleet.cp.dashboardToken())
        ? `  sign in: \`${linkCommand}\` prints a sign-in link, or use DASHBOARD_TOKEN from your secrets file`
        : `  sign in: \`${linkCommand}\` prints a sign-in link, or use the token in ${join(state, 'dashboard-token')} (kept across restarts; DASHBOARD_TOKEN in your secrets file replaces it)`,
    );
    for (const [agentId, { reason, keyName }] of fleet.offline)
      io.out(`  ${agentId}: offline model — ${reason}; ${giveKeyHint(keyName, agentId, files, io.cwd)}`);
    io.out(
      fleet.pollingAccounts.length
        ? `  telegram: polling for ${fleet.pollingAccounts.join(', ')}`
        : '  telegram: no bot tokens in the secrets file; chat in the browser instead',
    );
    io.out(`  manage it: npx clawfleet status | runtime restart --agent <id> | logs --agent <id> --follow`);
    io.out('  Ctrl-C stops the fleet.\n');

    const why = await stopRequested;
    warnings.flush();
    io.out(`\nclawfleet: stopping agents (${why})…`);
    await fleet.stop();
    io.out('clawfleet: stopped.');
    return EXIT.ok;
  },
};

/**
 * `npm start --port 8788` hands npm the option (as its config `port`, the 8788 becoming an
 * argument), not us: say how to pass it rather than start with a setting the user did not ask for.
 */
function npmSwallowed(args: string[], io: CliIO): void {
  if (io.env.npm_lifecycle_event !== 'start') return;
  const taken = NPM_SWALLOWED.filter((name) => io.env[`npm_config_${name.replace('-', '_')}`] !== undefined);
  if (!taken.length) return;
  // `--port 8788` reaches npm as port=true, and 8788 reaches us as an argument.
  const loose = args.filter((a) => !a.startsWith('-'));
  const example = taken.map((name) => {
    const value = io.env[`npm_config_${name.replace('-', '_')}`];
    return `--${name} ${value && value !== 'true' ? value : (loose.shift() ?? '…')}`;
  });
  throw new CliError(
    EXIT.usage,
    `npm took ${taken.map((n) => `--${n}`).join(', ')} for itself: npm passes on only what follows \`--\`. Run: npm start -- ${example.join(' ')}`,
  );
}
