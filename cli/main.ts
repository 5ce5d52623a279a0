// `clawfleet`: one command per file in cli/; this file routes to them, prints the help,
// and maps failures to exit codes (0 ok, 1 failed, 2 usage, 3 invalid input).
import { readFileSync } from 'node:fs';
import { watchParent } from '../shared/adapters/local/parent-watch.ts';
import { closest } from '../shared/did-you-mean.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { awsSettings } from './aws-env.ts';
import { awsErrorText, isAwsError } from './aws-errors.ts';
import { CliError, EXIT, type CliIO, type Command } from './command.ts';
import { terminalPrompt } from './prompt.ts';
import { replaceSdkNodeWarning } from './sdk-node-warning.ts';

/** A command as the list shows it; its code is loaded only when it runs, so each start loads one command. */
export interface CommandEntry {
  name: string;
  summary: string;
  /** Hidden from the command list until what it depends on exists. */
  hidden?: boolean;
  load(): Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'start', summary: 'run the whole fleet on this machine (= npm start)', load: async () => (await import('./start.ts')).startCommand },
  {
    name: 'status',
    summary: 'agents, state, model, queue and DLQ depth, last heartbeat, last error',
    load: async () => (await import('./status.ts')).statusCommand,
  },
  { name: 'runtime', summary: 'restart, upgrade, hibernate or wake one agent’s runtime', load: async () => (await import('./runtime.ts')).runtimeCommand },
  { name: 'logs', summary: 'print (and follow) one agent’s runtime log', load: async () => (await import('./logs.ts')).logsCommand },
  { name: 'secrets', summary: 'set or list an agent’s secret values (names only in output)', load: async () => (await import('./secrets.ts')).secretsCommand },
  {
    name: 'agents',
    summary: 'remove an agent that left the config, its workspace archived; or prune every such agent',
    load: async () => (await import('./agents.ts')).agentsCommand,
  },
  {
    name: 'sandbox',
    summary: 'install bubblewrap for local mode’s exec (into .cache/, no root) and check it works',
    load: async () => (await import('./sandbox.ts')).sandboxCommand,
  },
  { name: 'skills', summary: 'list the skills an agent is offered, and why any is left out', load: async () => (await import('./skills.ts')).skillsCommand },
  { name: 'cron', summary: 'list the cron jobs, or run one now', load: async () => (await import('./cron.ts')).cronCommand },
  {
    name: 'dashboard',
    summary: 'print a link that signs your browser in to the dashboard for ten minutes (the token never shown)',
    load: async () => (await import('./dashboard.ts')).dashboardCommand,
  },
  { name: 'pairing', summary: 'list pending Telegram pairing requests, or approve one', load: async () => (await import('./pairing.ts')).pairingCommand },
  { name: 'config', summary: 'validate the fleet config (every problem with its path)', load: async () => (await import('./config.ts')).configCommand },
  {
    name: 'deploy',
    summary: 'deploy the fleet to AWS step by step: credentials, bootstrap, synth, secrets, cdk deploy, webhooks, links',
    load: async () => (await import('./deploy.ts')).deployCommand,
  },
  {
    name: 'destroy',
    summary: 'take the deployed fleet down: export the registry, pairings and workspaces, remove what clawfleet made, list what stays billed',
    load: async () => (await import('./destroy.ts')).destroyCommand,
  },
  {
    name: 'cost',
    summary: 'monthly AWS estimate for the config, with the prices used and their date',
    load: async () => (await import('./cost.ts')).costCommand,
  },
  {
    name: 'security',
    summary: 'audit the fleet for risky settings (exit 1 on high findings)',
    load: async () => (await import('./security-audit.ts')).securityCommand,
  },
  {
    name: 'import-openclaw',
    summary: 'convert an OpenClaw config (JSON5) into clawfleet.json, with --workspaces its agents’ workspaces too',
    load: async () => (await import('./import-openclaw.ts')).importOpenclawCommand,
  },
  {
    name: 'openclaw',
    summary: 'make an external-mode OpenClaw agent’s device key, stored in its secret (the device id printed, never the key)',
    load: async () => (await import('./openclaw-device.ts')).openclawCommand,
  },
  {
    name: 'workspace',
    summary: 'push a folder into an agent’s workspace, or pull it out (locally or --aws)',
    load: async () => (await import('./workspace.ts')).workspaceCommand,
  },
];

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
}

function mainHelp(): string {
  const shown = COMMANDS.filter((c) => !c.hidden);
  const width = Math.max(...shown.map((c) => c.name.length));
  return `Usage: clawfleet <command> [options]

Runs and manages a fleet of personal AI agents, locally (\`clawfleet start\`) or on AWS (--aws).

Commands:
${shown.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

\`clawfleet <command> --help\` tells more. Exit codes: 0 ok, 1 failed, 2 usage error, 3 invalid input.`;
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(mainHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(version());
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const guess = closest(
      name,
      COMMANDS.map((c) => c.name),
    );
    io.err(
      name.startsWith('-')
        ? `clawfleet: unknown option ${name}: the command comes first (clawfleet <command> [options])\n\n${mainHelp()}`
        : `clawfleet: unknown command "${name}"${guess ? `; did you mean ${guess}?` : ''}\n\n${mainHelp()}`,
    );
    return EXIT.usage;
  }
  try {
    return await (await command.load()).run(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`clawfleet ${name}: ${err.message}`);
      return err.exitCode;
    }
    // An AWS error no command worded (a call outside any try): the same sentence, never a stack trace.
    if (isAwsError(err)) {
      io.err(`clawfleet ${name}: ${awsErrorText('an AWS call failed', err, awsSettings(io))}`);
      return EXIT.failed;
    }
    if (err instanceof ClawfleetError) {
      io.err(`clawfleet ${name}: ${err.message} (${err.code})`);
      return EXIT.failed;
    }
    io.err(`clawfleet ${name}: unexpected error: ${(err as Error).stack ?? String(err)}`);
    return EXIT.failed;
  }
}

/** The signals by which a terminal (Ctrl-C, hang-up), a service manager or `timeout` asks a program to stop. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves with the reason once the process is asked to stop. The handlers stay installed: a
 * second signal (npm passes Ctrl-C on to a child that got it from the terminal already) must
 * not kill the process halfway through stopping. Run through npm (`npm start`, `npx
 * clawfleet`), the process also stops when npm goes: npm passes on neither SIGHUP nor SIGKILL.
 */
function stopRequested(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, () => resolve(signal));
    if (process.env.npm_execpath) watchParent(() => resolve('npm, which started it, is gone'));
  });
}

/** The real process's I/O (also the smoke test's, scripts/smoke-aws.ts). */
export function processIO(): CliIO {
  let stop: Promise<string> | undefined;
  // A closed terminal (the hang-up that stops us) must not turn the goodbye lines into a crash mid-stop.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    readStdin: async () => {
      if (process.stdin.isTTY) process.stderr.write('(reading the value from standard input; end with Ctrl-D)\n');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    cwd: process.cwd(),
    interrupted: () => (stop ??= stopRequested()),
    ...(process.stdin.isTTY ? { prompt: terminalPrompt } : {}),
  };
}

/** Entry point of the `clawfleet` bin and of `npm start`. */
export async function main(argv: string[]): Promise<void> {
  replaceSdkNodeWarning(process as unknown as Parameters<typeof replaceSdkNodeWarning>[0], (line) => process.stderr.write(`${line}\n`));
  const code = await runCli(argv, processIO());
  // Long-running commands end here too; open handles (an SDK's sockets) must not keep us up.
  process.exit(code);
}
