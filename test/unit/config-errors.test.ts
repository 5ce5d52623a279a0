// What a person reads when their clawfleet.json is wrong: what is allowed and what was
// written, "did you mean" for a near miss, line and column (and the line) for broken JSON —
// the same words from `config validate`, `clawfleet start` and the CDK app.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { configIssues as describeIssues } from '../../shared/config/issue-text.ts';
import { parseConfigText } from '../../shared/config/load.ts';
import { closest } from '../../shared/did-you-mean.ts';
import { ConfigError } from '../../shared/errors.ts';
import * as z from '../../shared/zod.ts';
import { configIssues } from '../support/config-issues.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const example = () => JSON.parse(readFileSync('clawfleet.json', 'utf8')) as Record<string, any>;
const messageAt = (config: unknown, path: string) => configIssues(config).find((i) => i.path === path)?.message;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dirWith(text: string): string {
  const dir = tempDir('cf-config-errors-');
  dirs.push(dir);
  writeFileSync(join(dir, 'clawfleet.json'), text);
  return dir;
}

/** The ConfigError a text gets, as its message. */
function textError(text: string): string {
  try {
    parseConfigText(text, 'clawfleet.json');
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('accepted');
}

describe('a value that is not allowed', () => {
  it('names the values allowed, and what was written', () => {
    const c = example();
    c.agents.list[0].runtime.cpus = 3;
    c.agents.list[1].runtime = { cpus: 'two', memoryMb: 1024 };
    expect(messageAt(c, 'agents.list[0].runtime.cpus')).toBe('3 is not one of 0.25, 0.5, 1, 2, 4, 8, 16');
    expect(messageAt(c, 'agents.list[1].runtime.cpus')).toBe('expected a number (one of 0.25, 0.5, 1, 2, 4, 8, 16), got the string "two"');
  });

  it('gives the range of a number, both ends', () => {
    const c = example();
    c.agents.list[1].runtime = { memoryMb: 100 };
    c.agents.list[2].runtime = { memoryMb: 200_000 };
    c.agents.list[3].runtime = { memoryMb: 1024.5 };
    expect(messageAt(c, 'agents.list[1].runtime.memoryMb')).toBe('100 is too small; expected a whole number from 512 to 122880');
    expect(messageAt(c, 'agents.list[2].runtime.memoryMb')).toBe('200000 is too big; expected a whole number from 512 to 122880');
    expect(messageAt(c, 'agents.list[3].runtime.memoryMb')).toBe('expected a whole number from 512 to 122880, got the number 1024.5');
  });

  it('says the type expected, and the type written', () => {
    const c = example();
    c.agents.list[3].model = 5;
    c.agents.list[2].runtime = { alwaysOn: 'yes' };
    c.channels.telegram.accounts = [];
    expect(messageAt(c, 'agents.list[3].model')).toBe('expected a string or an object, got the number 5');
    expect(messageAt(c, 'agents.list[2].runtime.alwaysOn')).toBe('expected true or false, got the string "yes"');
    expect(messageAt(c, 'channels.telegram.accounts')).toBe('expected an object, got a list');
  });

  it('says what a missing key should hold', () => {
    const c = example();
    delete c.models.providers.openai.api;
    expect(messageAt(c, 'models.providers.openai.api')).toBe(
      'missing; expected a string (one of "anthropic-messages", "openai-completions", "bedrock-converse")',
    );
  });

  it('guesses the value meant when one is close, and only then', () => {
    const c = example();
    c.channels.telegram.dmPolicy = 'pairng';
    c.channels.telegram.accounts.fran.dmPolicy = 'everyone';
    c.cron = { jobs: [{ id: 'a', agentId: 'fran', schedule: { kind: 'evry', every: '1h' }, payload: { kind: 'systemEvent', text: 'x' } }] };
    expect(messageAt(c, 'channels.telegram.dmPolicy')).toBe('"pairng" is not one of "pairing", "allowlist", "open", "disabled"; did you mean "pairing"?');
    expect(messageAt(c, 'channels.telegram.accounts.fran.dmPolicy')).toBe('"everyone" is not one of "pairing", "allowlist", "open", "disabled"');
    expect(messageAt(c, 'cron.jobs[0].schedule.kind')).toBe('"evry" is not one of "at", "every", "cron"; did you mean "every"?');
  });

  it('keeps the words a schema gives a value itself, with what was written', () => {
    const c = example();
    c.agents.list[3].id = 'Ray';
    expect(messageAt(c, 'agents.list[3].id')).toBe('must be 1–24 chars of a-z, 0-9 and "-", starting with a letter (got "Ray")');
  });
});

describe('an unknown key', () => {
  it('is named by its own path, with the key meant when one is close', () => {
    const c = example();
    c.agents.list[0].runtime.alwaysOnn = true;
    c.fleeet = 'x';
    expect(messageAt(c, 'agents.list[0].runtime.alwaysOnn')).toBe('unknown key; did you mean "alwaysOn"?');
    expect(messageAt(c, 'fleeet')).toBe('unknown key; did you mean "fleet"?');
  });

  it('lists the keys allowed there when none is close', () => {
    const c = example();
    c.agents.list[2].colour = 'blue';
    expect(messageAt(c, 'agents.list[2].colour')).toBe(
      'unknown key; the keys here are id, name, default, model, runtime, tools, mcp, skills, heartbeat, budget, secrets, tts',
    );
  });

  it('in one shape of a union, is answered with that shape’s keys', () => {
    const c = example();
    c.agents.list[2].mcp = { servers: { fs: { command: 'npx', sandbx: true } } };
    expect(messageAt(c, 'agents.list[2].mcp.servers.fs.sandbx')).toBe('unknown key; did you mean "sandbox"?');
  });
});

describe('every problem at once', () => {
  it('reports each with its path in one error', () => {
    const c = example();
    c.agents.list[0].runtime.cpus = 3;
    c.channels.telegram.dmPolicy = 'pairng';
    c.fleeet = 'x';
    c.bindings[0].agentId = 'nobody';
    expect(configIssues(c).map((i) => i.path)).toEqual(['agents.list[0].runtime.cpus', 'channels.telegram.dmPolicy', 'fleeet']);
    // Cross-file checks come once the shape is right, as before.
    delete c.fleeet;
    c.agents.list[0].runtime.cpus = 2;
    c.channels.telegram.dmPolicy = 'pairing';
    expect(configIssues(c)).toEqual([{ path: 'bindings[0].agentId', message: 'no agent "nobody"' }]);
  });
});

describe('a key added to the schema', () => {
  it('gets the same words with nothing added to the formatter', () => {
    // A block as another change might add one (runtime.localSandbox, operator…).
    const schema = z.strictObject({
      localSandbox: z.optional(z.strictObject({ mode: z.enum(['bubblewrap', 'none']), timeoutSeconds: z.optional(z.int().check(z.gte(1), z.lte(600))) })),
    });
    const input = { localSandbox: { mode: 'bubblwrap', timeoutSeconds: 0, extra: 1 } };
    const parsed = schema.safeParse(input, { reportInput: true });
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error!.issues, schema, input)).toEqual([
      { path: 'localSandbox.mode', message: '"bubblwrap" is not one of "bubblewrap", "none"; did you mean "bubblewrap"?' },
      { path: 'localSandbox.timeoutSeconds', message: '0 is too small; expected a whole number from 1 to 600' },
      { path: 'localSandbox.extra', message: 'unknown key; the keys here are mode, timeoutSeconds' },
    ]);
  });
});

describe('a pasted credential', () => {
  it('is never repeated in the error, where a name belongs or in broken JSON', () => {
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const c = example();
    c.channels.telegram.accounts.ray.botTokenSecret = token;
    c.agents.list[0].model = { primary: 'openai/gpt-4.1-mini', fallbacks: token };
    const issues = configIssues(c);
    expect(issues.find((i) => i.path === 'channels.telegram.accounts.ray.botTokenSecret')?.message).toMatch(/\(got a string of 44 characters\)$/);
    expect(issues.find((i) => i.path === 'agents.list[0].model.fallbacks')?.message).toBe('expected a list, got a string of 44 characters');
    expect(JSON.stringify(issues)).not.toContain('AAHdqTcv');

    // JSON.parse's own message quotes the text before the spot ("...\"5PALDsaw\",]"): not repeated.
    const broken = textError(`{\n  "fleet": "demo",\n  "botTokens": ["${token}",]\n}`);
    expect(broken).toContain('line 3, column 64: not valid JSON: a "," before "]": JSON allows no trailing comma');
    expect(broken).not.toMatch(/AAHdqTcv|5PALDsaw/);
    expect(broken).toContain(`"botTokens": ["${'*'.repeat(token.length)}",]`);
  });
});

describe('text that is not JSON', () => {
  it('says the line and column, shows the line, and puts a caret under the spot', () => {
    expect(textError('{\n  "fleet": "x",\n  "agents": [1,]\n}\n')).toBe(
      [
        'clawfleet.json is invalid:',
        '  - line 3, column 16: not valid JSON: a "," before "]": JSON allows no trailing comma',
        '      3 |   "agents": [1,]',
        '        |                ^',
      ].join('\n'),
    );
  });

  it('names the usual mistakes in words', () => {
    expect(textError('{\n  "fleet": "x", // mine\n}')).toContain('line 2, column 17: not valid JSON: JSON has no comments');
    expect(textError('{\n  "fleet": "x"\n  "agents": {}\n}')).toContain(
      'line 3, column 3: not valid JSON: expected "," or "}" after a property, found a string (a "," missing before it?)',
    );
    expect(textError("{ fleet: 'x' }")).toContain('line 1, column 3: not valid JSON: a property name needs double quotes');
    expect(textError('{ "fleet": \'x\' }')).toContain("line 1, column 12: not valid JSON: JSON strings take double quotes, not '");
    expect(textError('{\n  "fleet": "x",\n  "a": {"b": [1, 2')).toContain(
      'line 3, column 19: not valid JSON: the text ends inside the array opened at line 3, column 14',
    );
    expect(textError('')).toContain('line 1, column 1: not valid JSON: the text ends where a value should be');
    expect(textError('{}\n{}')).toContain('line 2, column 1: not valid JSON: the JSON value ends before this: found "{"');
    expect(textError('{ "fleet": "a\nb" }')).toContain('line 1, column 14: not valid JSON: a string cannot hold a line break');
  });

  it('cuts a long line around the column', () => {
    const long = `{ "fleet": "x", "pad": "${'a '.repeat(200)}", oops }`;
    const message = textError(long);
    const [shownLine, caret] = message.split('\n').slice(2);
    expect(shownLine!.length).toBeLessThan(130);
    expect(shownLine).toContain('oops');
    // The caret sits under the "o" of oops.
    expect(shownLine![caret!.indexOf('^')]).toBe('o');
  });

  it('takes a file that starts with a byte-order mark', () => {
    expect(() => parseConfigText(`\uFEFF${readFileSync('clawfleet.json', 'utf8')}`)).not.toThrow();
  });
});

describe('the same words everywhere the config is read', () => {
  const broken = (() => {
    const c = example();
    c.agents.list[0].runtime.cpus = 3;
    c.channels.telegram.dmPolicy = 'pairng';
    return JSON.stringify(c, null, 2);
  })();
  const lines = ['agents.list[0].runtime.cpus: 3 is not one of 0.25, 0.5, 1, 2, 4, 8, 16', 'channels.telegram.dmPolicy: "pairng" is not one of'];

  it('from `config validate` and `clawfleet start` (exit 3)', async () => {
    const dir = dirWith(broken);
    for (const argv of [
      ['config', 'validate'],
      ['start', '--port', '0', '--state', join(dir, 'state')],
    ]) {
      const io = captureIO({ cwd: dir });
      expect(await runCli(argv, io), argv[0]).toBe(3);
      for (const line of lines) expect(io.errText()).toContain(line);
    }
  });

  it('from the CDK app, before any template is written', () => {
    const dir = dirWith(broken);
    const out = join(dir, 'cdk.out');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/bin/app.ts'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ config: join(dir, 'clawfleet.json') }), CDK_OUTDIR: out },
    });
    expect(run.status, run.stderr).toBe(1);
    for (const line of lines) expect(run.stderr).toContain(line);
  }, 120_000);
});

describe('did you mean', () => {
  it('offers the closest word within a third of its length, and nothing further off', () => {
    expect(closest('josn', ['json', 'config'])).toBe('json');
    expect(closest('statsu', ['start', 'status', 'secrets'])).toBe('status');
    expect(closest('Status', ['status'])).toBe('status');
    expect(closest('xyz', ['status', 'start'])).toBeUndefined();
    expect(closest('status', ['status', 'start'])).toBeUndefined();
  });
});
