// Config fuzzing: the example clawfleet.json (with cron, hooks, heartbeats, MCP and
// agent-to-agent added so mutations reach them) mutated thousands of ways. Every config is
// either accepted or rejected with a ConfigError naming each problem's path — never another
// exception. A sample of the rejected ones goes through `clawfleet config validate` (exit 3,
// no stack trace) and through the CDK app (refused before anything is written).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig, parseConfigText } from '../../shared/config/load.ts';
import { ConfigError } from '../../shared/errors.ts';
import { writeFigures } from '../support/figures.ts';
import { prng, seedFrom, type Prng } from '../support/prng.ts';
import { oddText } from './telegram-bodies.ts';
import { tempDir } from '../support/temp-dirs.ts';

const MUTANTS = Number(process.env.FUZZ_CONFIGS ?? 3_000);
const SEED = seedFrom(process.env, 31_337);
const SAMPLES = Number(process.env.FUZZ_CONFIG_SAMPLES ?? 3);
const dir = tempDir('cf-config-fuzz-');

function richExample(): Record<string, any> {
  const c = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  c.agents.list[1].heartbeat = { every: '30m', activeHours: { start: '08:00', end: '22:00', timezone: 'Europe/Berlin' } };
  c.agents.list[1].mcp = {
    servers: {
      graph: { command: 'node', args: ['graph.js'], env: { GRAPH_TOKEN: 'GRAPH_TOKEN' } },
      web: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'WEB_TOKEN' } },
    },
  };
  c.agents.list[2].tools = { allow: ['group:fs', 'exec'], deny: ['web_fetch'] };
  c.agents.list[3].model = { primary: 'openai/gpt-4.1', fallbacks: ['anthropic/claude-sonnet-4-5'] };
  c.cron = {
    jobs: [
      {
        id: 'morning',
        agentId: 'fran',
        schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' },
        payload: { kind: 'agentTurn', message: 'Plan my day' },
        delivery: { mode: 'announce', accountId: 'fran', to: '5001' },
      },
    ],
  };
  c.hooks = { tokenSecret: 'HOOKS_TOKEN', mappings: { gmail: { agentId: 'grif', messageTemplate: 'Mail from {{body.from}}' } } };
  c.agentToAgent = { allow: [{ from: 'jerry', to: 'fran' }], maxHops: 3 };
  c.session = { dmScope: 'per-peer' };
  c.bindings.push({ agentId: 'ray', match: { channel: 'telegram', accountId: 'ray', peer: { kind: 'group', id: '-100123' } } });
  return c;
}

/** Every (parent, key) in the tree, for picking a place to mutate. */
function places(node: unknown, out: Array<[Record<string, unknown> | unknown[], string | number]> = []) {
  if (Array.isArray(node)) node.forEach((v, i) => (out.push([node, i]), places(v, out)));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) out.push([node as Record<string, unknown>, k]), places(v, out);
  return out;
}

function otherValue(r: Prng): unknown {
  return r.pick([
    null,
    true,
    false,
    0,
    -1,
    0.25,
    3,
    1e9,
    NaN,
    '',
    ' ',
    'x',
    'UPPER',
    'a'.repeat(300),
    oddText(r, 40),
    [],
    [1],
    {},
    { unexpected: 1 },
    '30x',
    '25:00',
    'not a url',
    'nope/model',
  ]);
}

const MUTATIONS: Record<string, (r: Prng, c: Record<string, any>) => void> = {
  'delete a key': (r, c) => {
    const [parent, key] = r.pick(places(c));
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key as string];
  },
  'change a value’s type or value': (r, c) => {
    const [parent, key] = r.pick(places(c));
    (parent as Record<string | number, unknown>)[key] = otherValue(r);
  },
  'add an unknown key': (r, c) => {
    const objects = places(c)
      .map(([p, k]) => (p as Record<string | number, unknown>)[k])
      .filter((v) => v && typeof v === 'object' && !Array.isArray(v)) as Record<string, unknown>[];
    r.pick([c, ...objects])[r.pick(['colour', 'Model', 'agent', '__proto__x', 'secretValue', 'apiKey'])] = otherValue(r);
  },
  'duplicate an agent': (r, c) => c.agents.list.push(structuredClone(r.pick(c.agents.list))),
  'size an agent Fargate cannot run': (r, c) =>
    (r.pick(c.agents.list as Record<string, any>[]).runtime = r.pick([
      { cpus: 0.25, memoryMb: 8192 },
      { cpus: 16, memoryMb: 512 },
      { cpus: 3, memoryMb: 4096 },
      { cpus: 1, memoryMb: 100 },
      { cpus: 2 },
    ])),
  'bind to an agent that does not exist': (r, c) =>
    c.bindings.push({ agentId: r.pick(['zed', 'fran-x', 'Fran']), match: { channel: 'telegram', accountId: r.pick(['fran', 'nobody']) } }),
  'name a model of an unknown provider': (r, c) =>
    (r.pick(c.agents.list as Record<string, any>[]).model = r.pick(['mistral/large', 'openai', 'gemini/2.5-pro'])),
  'make two defaults': (_r, c) => c.agents.list.forEach((a: Record<string, unknown>) => (a.default = true)),
  'empty a list': (r, c) => r.pick([() => (c.agents.list = []), () => (c.channels.telegram.accounts = {}), () => (c.models.providers = {})])(),
  'several at once': (r, c) => {
    for (let n = r.int(2, 5); n > 0; n--) {
      try {
        r.pick(Object.entries(MUTATIONS).filter(([k]) => k !== 'several at once'))[1](r, c);
      } catch {
        // An earlier mutation removed what this one edits: the config is broken enough.
      }
    }
  },
};

const figures = {
  seed: SEED,
  mutants: 0,
  accepted: 0,
  rejected: 0,
  issues: 0,
  byMutation: {} as Record<string, { accepted: number; rejected: number }>,
  cliSamples: 0,
  cdkSamples: 0,
};
const rejected: Array<{ json: string; paths: string[] }> = [];

afterAll(() => writeFigures('fuzz-config', { command: `FUZZ_CONFIGS=${MUTANTS} FUZZ_SEED=${SEED} npx vitest run test/fuzz/config.test.ts`, ...figures }));

describe(`the config parser, fed ${MUTANTS} mutants of the example (seed ${SEED})`, () => {
  it('accepts a config or rejects it with a ConfigError that names every problem’s path — never another exception', () => {
    const r = prng(SEED);
    const failures: string[] = [];
    for (let i = 0; i < MUTANTS && failures.length < 5; i++) {
      const [name, mutate] = r.pick(Object.entries(MUTATIONS));
      const c = richExample();
      mutate(r, c);
      const stat = (figures.byMutation[name] ??= { accepted: 0, rejected: 0 });
      figures.mutants++;
      try {
        parseConfig(c);
        figures.accepted++;
        stat.accepted++;
      } catch (err) {
        if (!(err instanceof ConfigError)) {
          failures.push(`#${i} ${name}: threw ${(err as Error)?.stack ?? String(err)}`);
          continue;
        }
        figures.rejected++;
        stat.rejected++;
        figures.issues += err.issues.length;
        if (err.issues.length === 0 || err.issues.some((x) => typeof x.path !== 'string' || !x.message))
          failures.push(`#${i} ${name}: issues without a path or message: ${JSON.stringify(err.issues)}`);
        if (rejected.length < 200) rejected.push({ json: JSON.stringify(c), paths: err.issues.map((x) => x.path) });
      }
    }
    expect(failures).toEqual([]);
    expect(figures.rejected).toBeGreaterThan(MUTANTS / 2);
    // Each deliberate break is caught (the generic ones may land somewhere harmless).
    for (const name of [
      'duplicate an agent',
      'size an agent Fargate cannot run',
      'bind to an agent that does not exist',
      'name a model of an unknown provider',
      'make two defaults',
      'empty a list',
    ]) {
      expect(figures.byMutation[name]?.accepted, name).toBe(0);
    }
  });

  it('rejects text that is not JSON, cut short or empty, with a ConfigError', () => {
    const text = JSON.stringify(richExample());
    const r = prng(SEED + 1);
    for (let i = 0; i < 200; i++) {
      const cut = r.pick(['', ' ', 'null', '[]', '"fleet"', text.slice(0, r.int(0, text.length - 1)), `${text}}`, text.replace('{', '{,')]);
      expect(() => parseConfigText(cut, 'fuzz.json')).toThrow(ConfigError);
    }
  });
});

describe('a sample of rejected configs', () => {
  it(`is refused by \`clawfleet config validate\` with exit 3 and every issue’s path, without a stack trace (${SAMPLES} samples)`, () => {
    expect(rejected.length).toBeGreaterThan(SAMPLES);
    const r = prng(SEED + 2);
    for (let n = 0; n < SAMPLES; n++) {
      const sample = r.pick(rejected);
      const file = join(dir, `cli-${n}.json`);
      writeFileSync(file, sample.json);
      const run = spawnSync(process.execPath, ['bin/clawfleet.js', 'config', 'validate', '--config', file], { encoding: 'utf8', timeout: 60_000 });
      const output = run.stdout + run.stderr;
      expect(run.status, output).toBe(3);
      for (const path of sample.paths) expect(output).toContain(path || '(root)');
      expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/);
      figures.cliSamples++;
    }
  }, 180_000);

  it(`is refused by the CDK app before any template is written (${SAMPLES} samples)`, () => {
    const r = prng(SEED + 3);
    for (let n = 0; n < SAMPLES; n++) {
      const sample = r.pick(rejected);
      const file = join(dir, `cdk-${n}.json`);
      const out = mkdtempSync(join(dir, 'cdk.out-'));
      writeFileSync(file, sample.json);
      // What `cdk synth -c config=<file>` runs (cdk.json: "npx tsx infra/bin/app.ts").
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/bin/app.ts'], {
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ config: file }), CDK_OUTDIR: out },
      });
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      expect(run.stderr).toMatch(/ is invalid:\n/);
      // The problems only: no stack trace after them.
      expect(run.stderr).not.toMatch(/\n\s+at /);
      for (const path of sample.paths) expect(run.stderr).toContain(path || '(root)');
      expect(readdirSync(out)).toEqual([]);
      figures.cdkSamples++;
    }
  }, 360_000);
});
