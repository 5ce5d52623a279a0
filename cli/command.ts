// What every command shares: its I/O (injectable, so tests run commands in-process), the
// exit codes, and argument parsing that turns a mistake into a usage error with the help.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest, didYouMean } from '../shared/did-you-mean.ts';

export const EXIT = {
  ok: 0,
  /** The operation failed (a fleet not running, an AWS call refused, a missing resource). */
  failed: 1,
  /** The command line was wrong. */
  usage: 2,
  /** An input file (config, OpenClaw config) is invalid; every problem was printed. */
  invalid: 3,
} as const;

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** All of standard input (secret values are read from it, never from arguments). */
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves, saying why, when a long-running command is asked to stop (Ctrl-C, SIGTERM…); only such commands call it. */
  interrupted(): Promise<string>;
  /**
   * Asks one question on the terminal and reads one line (a `secret` answer is not echoed).
   * Absent when standard input is not a terminal: a command then needs its --yes or
   * --non-interactive way, and says so.
   */
  prompt?(question: string, opts?: { secret?: boolean }): Promise<string>;
}

/** What a command file exports; its name and summary live in cli/main.ts's list, which loads it. */
export interface Command {
  run(args: string[], io: CliIO): Promise<number>;
}

/** A failure with the exit code it maps to; its message is printed as is. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string, help: string) => new CliError(EXIT.usage, `${message}\n\n${help}`);

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * What is wrong with the options in `args`, in our words (Node's parser words it for a
 * programmer): an unknown option with the nearest known one, a value missing or given where
 * none is taken. Undefined when parseArgs will take them.
 */
export function optionProblem(args: readonly string[], options: Options): string | undefined {
  const names = Object.keys(options);
  const byShort = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined; // what follows is positional
    if (!arg.startsWith('-') || arg === '-') continue;
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      [name, inline] = eq < 0 ? [arg.slice(2), undefined] : [arg.slice(2, eq), arg.slice(eq + 1)];
      if (!options[name]) return `unknown option --${name}${didYouMean(name, names, (s) => `--${s}`)}`;
    } else {
      // Short options stand alone here (-f, -h); "-x" is a mistyped one, or "--x".
      name = byShort.get(arg.slice(1, 2));
      if (!name || arg.length > 2) return `unknown option ${arg}${didYouMean(arg.replace(/^-+/, ''), names, (s) => `--${s}`)}`;
    }
    const takesValue = options[name]!.type === 'string';
    if (!takesValue && inline !== undefined) return `--${name} takes no value`;
    if (takesValue && inline === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) return `--${name} needs a value`;
      i++;
    }
  }
  return undefined;
}

/** Parses `args` strictly; `--help` (or -h) is always accepted. Undefined means help was printed. */
export function parse(args: string[], options: Options, help: string, io: CliIO, positionals = { min: 0, max: 0 }): Parsed | undefined {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } };
  const problem = optionProblem(args, all);
  if (problem) throw usageError(problem, help);
  let parsed;
  try {
    parsed = parseArgs({ args, options: all, allowPositionals: true, strict: true });
  } catch (err) {
    // optionProblem saw what parseArgs refuses; should they ever disagree, say it without Node's wording.
    throw usageError(`cannot read the options (${(err as NodeJS.ErrnoException).code ?? 'parse error'})`, help);
  }
  if (parsed.values.help) {
    io.out(help);
    return undefined;
  }
  if (parsed.positionals.length < positionals.min) throw usageError('missing argument', help);
  if (parsed.positionals.length > positionals.max) throw usageError(`unexpected argument "${parsed.positionals[positionals.max]}"`, help);
  return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
}

/**
 * The subcommand (or action) `given` as one of `allowed`; a usage error otherwise, naming the
 * nearest one when it is a near miss.
 */
export function choose<T extends string>(given: string | undefined, allowed: readonly T[], help: string, what = 'subcommand'): T {
  if (given !== undefined && (allowed as readonly string[]).includes(given)) return given as T;
  const list = allowed.length === 1 ? allowed[0]! : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  if (given === undefined) throw usageError(`missing ${what} (${list})`, help);
  if (given.startsWith('-')) throw usageError(`missing ${what} (${list}): it comes before the options`, help);
  const guess = closest(given, allowed);
  throw usageError(`unknown ${what} "${given}"${guess ? `; did you mean ${guess}?` : ` (${list})`}`, help);
}

/** A string option's value (parseArgs types them loosely). */
export const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** The options of the commands that act on a fleet, local or deployed, with their defaults; COMMON_HELP describes them. */
export const commonOptions = {
  config: { type: 'string', default: 'clawfleet.json' },
  state: { type: 'string', default: '.clawfleet' },
  aws: { type: 'boolean', default: false },
} as const;

export const COMMON_HELP = `  --config <path>   the fleet config (default clawfleet.json)
  --state <dir>     local mode's state directory (default .clawfleet)
  --aws             act on the deployed fleet (AWS credentials and AWS_REGION from the environment)`;

/** A count and its noun, "1 agent" or "4 agents"; `many` for nouns that do not just add an s. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Formats epoch ms as a short age ("12s ago"). */
export function ago(ms: number | null | undefined, now: number): string {
  if (ms === null || ms === undefined) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s}s ago`;
  if (s < 5400) return `${Math.round(s / 60)}m ago`;
  if (s < 172_800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** Left-aligned columns for a small table. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
