// `clawfleet`: one command per file in cli/; this file routes to them, prints the help,
// and maps failures to exit codes (0 ok, 1 failed, 2 usage, 3 invalid input).
import { readFileSync } from 'node:fs';
import { ClawfleetError } from '../shared/errors.ts';
import { CliError, EXIT, type CliIO, type Command } from './command.ts';
import { configCommand } from './config.ts';
import { costCommand } from './cost.ts';
import { cronCommand } from './cron.ts';
import { importOpenclawCommand } from './import-openclaw.ts';
import { logsCommand } from './logs.ts';
import { pairingCommand } from './pairing.ts';
import { runtimeCommand } from './runtime.ts';
import { secretsCommand } from './secrets.ts';
import { securityCommand } from './security-audit.ts';
import { startCommand } from './start.ts';
import { statusCommand } from './status.ts';

export const COMMANDS: Command[] = [
  startCommand,
  statusCommand,
  runtimeCommand,
  logsCommand,
  secretsCommand,
  cronCommand,
  pairingCommand,
  configCommand,
  costCommand,
  securityCommand,
  importOpenclawCommand,
];

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
}

export function mainHelp(): string {
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
    io.err(`clawfleet: unknown command "${name}"\n\n${mainHelp()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`clawfleet ${name}: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof ClawfleetError) {
      io.err(`clawfleet ${name}: ${err.message} (${err.code})`);
      return EXIT.failed;
    }
    io.err(`clawfleet ${name}: unexpected error: ${(err as Error).stack ?? String(err)}`);
    return EXIT.failed;
  }
}

/** The I/O of the real process. */
export function processIO(): CliIO {
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
    interrupted: () =>
      new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      }),
  };
}

/** Entry point of the `clawfleet` bin and of `npm start`. */
export async function main(argv: string[]): Promise<void> {
  const code = await runCli(argv, processIO());
  // Long-running commands end here too; open handles (an SDK's sockets) must not keep us up.
  process.exit(code);
}
