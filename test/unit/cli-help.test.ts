// Every `clawfleet … --help` describes every option its command accepts: each option the
// command hands to the argument parser has its own line in the help's option list.
import { describe, expect, it, vi } from 'vitest';
import type { ParseArgsConfig } from 'node:util';
import { COMMANDS, runCli } from '../../cli/main.ts';
import { captureIO } from './cli-io.ts';

/** The options each parse() call was given, with the help it prints. */
const seen: { options: NonNullable<ParseArgsConfig['options']>; help: string }[] = [];
vi.mock('../../cli/command.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../cli/command.ts')>();
  return {
    ...real,
    parse: (...args: Parameters<typeof real.parse>) => {
      seen.push({ options: args[1], help: args[2] });
      return real.parse(...args);
    },
  };
});

/** Every command, and each subcommand of those that have them. */
const INVOCATIONS = [
  ['start'],
  ['status'],
  ['runtime', 'restart'],
  ['runtime', 'upgrade'],
  ['runtime', 'hibernate'],
  ['runtime', 'wake'],
  ['logs'],
  ['secrets', 'set'],
  ['secrets', 'list'],
  ['agents', 'remove'],
  ['agents', 'prune'],
  ['sandbox', 'install'],
  ['skills', 'list'],
  ['cron', 'list'],
  ['cron', 'run'],
  ['dashboard'],
  ['pairing', 'list'],
  ['pairing', 'approve'],
  ['config', 'validate'],
  ['cost'],
  ['deploy'],
  ['destroy'],
  ['security', 'audit'],
  ['import-openclaw'],
  ['openclaw', 'device'],
  ['workspace', 'push'],
  ['workspace', 'pull'],
];

describe('clawfleet --help', () => {
  it('covers every command', () => {
    expect(new Set(INVOCATIONS.map(([name]) => name))).toEqual(new Set(COMMANDS.map((c) => c.name)));
  });

  for (const argv of INVOCATIONS) {
    it(`${argv.join(' ')}: lists every option it accepts, each on its own line`, async () => {
      seen.length = 0;
      const io = captureIO();
      expect(await runCli([...argv, '--help'], io), io.errText()).toBe(0);
      expect(seen).toHaveLength(1);
      const { options, help } = seen[0]!;
      expect(io.outText()).toBe(help);
      const described = new Set([...help.matchAll(/^ {2,}(?:-\w, )?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]));
      const missing = Object.keys(options).filter((name) => !described.has(name));
      expect(missing, `options without a line in the help of "${argv.join(' ')}"`).toEqual([]);
    });
  }
});
