// Start-to-ready time, CPU and idle RSS of the agent runtime as the image runs it — its app
// built by the Dockerfile's own build-stage commands, started with the final stage's CMD and
// ENV on the image's Node 24 — for the working tree and for a baseline built from a git ref,
// side by side in one run (rounds interleaved, so load on the machine hits both alike).
// The runtime talks to a stub of the local control plane's channel that never has work.
//   npx tsx bench/runtime-start.ts [--runs 7] [--before <ref>] [--levers] [--node20] [--mcp] [--ref label=<ref>]…
//     --levers   each run-time lever alone: applied to the baseline, and taken away from this tree's app
//     --node20   the same bundles on this machine's Node (what local mode and the tests run)
//     --mcp      with two MCP servers (server-everything, server-filesystem)
//     --ref      another tree to build and run as its Dockerfile does (e.g. one commit per lever)
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseConfig } from '../shared/config/load.ts';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import { ensureNode24 } from './openclaw-install.ts';
import { processTree, readKb, treeUsage } from './proc-usage.ts';
import { buildImageApp, checkoutForImage, containerLike, idleControlChannel, unshareBinary, type ImageApp } from './runtime-harness.ts';

/** The runtime before issue #18's start-up work (main when it began). */
const BASELINE_REF = '90433df';
/** The bench's own tool uid pool: as many uids as the image's (20001-20032), numbers no test uses, so its cleanup (kill -1 as a uid) touches nothing else. */
const BENCH_TOOL_UIDS = { range: '20401-20432', gid: '20400' };

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    before: { type: 'string', default: BASELINE_REF },
    levers: { type: 'boolean', default: false },
    node20: { type: 'boolean', default: false },
    mcp: { type: 'boolean', default: false },
    ref: { type: 'string', multiple: true, default: [] },
    'idle-seconds': { type: 'string', default: '3' },
  },
});
const RUNS = Number(opts.runs);
const IDLE_MS = Number(opts['idle-seconds']) * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
const mcpPkg = (n: string) => join(root, 'node_modules/@modelcontextprotocol', n, 'dist/index.js');
const say = (line: string) => console.error(line);

interface Variant {
  label: string;
  /** The row whose figures the ratio column divides by. */
  baseline?: string;
  node: string;
  args: string[];
  env: Record<string, string>;
  mcp?: boolean;
  /** Built from an older tree, whose runtime refuses config keys added since (strict schemas): given the config without them. */
  olderTree?: boolean;
  /** Started once first as a plain process stopped by SIGTERM, so Node writes its compile cache (a SIGKILL'd namespace never would). */
  warmCompileCache?: boolean;
}
interface Sample {
  readyMs: number;
  /** CPU of the runtime's own threads (every thread's schedstat) from its start to `ready`. */
  cpuMs: number;
  /** Time its threads were runnable but waited for a core: how much the machine's load held it back. */
  waitMs: number;
  rssMb: number;
  treeMb: number;
  /** What the runtime wrote on stderr until it was stopped. */
  stderr: string;
}

/** CPU time and run-queue wait of every live thread of `pid`, in ms (/proc/<pid>/task/<tid>/schedstat, in ns). */
function schedMs(pid: number): { cpu: number; wait: number } {
  let cpu = 0;
  let wait = 0;
  let threads: string[] = [];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    // exited meanwhile
  }
  for (const tid of threads) {
    try {
      const [run, queued] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      cpu += (run ?? 0) / 1e6;
      wait += (queued ?? 0) / 1e6;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return { cpu, wait };
}

/** Runs as a container would (see containerLike) where this process may: then /tmp is the run's own. */
const unshare = unshareBinary();

async function once(v: Variant, env: Record<string, string>, runDir: string, plain = false): Promise<Sample> {
  const cmd = [v.node, ...v.args];
  const inNamespace = unshare !== undefined && !plain;
  const argv = inNamespace ? containerLike(unshare, cmd, [join(runDir, 'workspace')]) : cmd;
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...v.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    cwd: '/',
  });
  // The token and secrets go on fd 3, as the local supervisor passes them (CLAWFLEET_SECRETS_FD).
  const pipe = child.stdio[3] as NodeJS.WritableStream;
  pipe.on('error', () => {}); // the bare server never reads it
  pipe.end(JSON.stringify({ token: 'bench-token-0123456789', secrets: { OPENAI_API_KEY: 'sk-bench-not-used-000000' } }));
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  // Under unshare the runtime is unshare's child (sh exec'd it); else the spawned process itself.
  const runtimePid = () => (inNamespace ? processTree(child.pid!)[1] : child.pid) ?? child.pid!;
  const { readyMs, sched } = await new Promise<{ readyMs: number; sched: { cpu: number; wait: number } }>((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      if (buf.includes('"msg":"ready"')) resolve({ readyMs: performance.now() - started, sched: schedMs(runtimePid()) });
    });
    child.once('exit', (code) => reject(new Error(`${v.label}: exited ${code} before ready: ${buf.slice(-2000)} ${err.slice(-2000)}`)));
  });
  // Idle: whatever a start leaves for after `ready` (the model provider's module) has run; GC settles.
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const pid = runtimePid();
  const rssMb = readKb(`/proc/${pid}/status`, 'VmRSS') / 1024;
  const treeMb = treeUsage(pid).rssKb / 1024;
  const exited = new Promise((r) => child.once('exit', r));
  // unshare's death kills its namespace; a plain runtime drains on SIGTERM.
  child.kill(inNamespace ? 'SIGKILL' : 'SIGTERM');
  await exited;
  return { readyMs, cpuMs: sched.cpu, waitMs: sched.wait, rssMb, treeMb, stderr: err };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ---- build what is compared -------------------------------------------------------------
// Outside /tmp when runs get a /tmp of their own, which would hide it.
const work = mkdtempSync(join(unshare ? '/var/tmp' : tmpdir(), 'cf-bench-start-'));
const { node: node24 } = ensureNode24(join(root, '.cache', 'openclaw'), say);
const node24Version = execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim();

/** Builds a tree's image app as its Dockerfile does; `ref` undefined means the working tree. */
function imageOf(name: string, ref: string | undefined): ImageApp & { commit: string } {
  const src = ref === undefined ? root : join(work, `${name}-src`);
  const commit = ref === undefined ? 'working tree' : checkoutForImage(root, ref, src);
  say(`building ${name} (${commit}) as runtime-image/Dockerfile does …`);
  return { ...buildImageApp(src, join(work, name, 'app'), node24), commit };
}
const before = imageOf('before', opts.before);
const after = imageOf('after', undefined);
const extra = opts.ref.map((spec) => {
  const [label, ref] = spec.split('=');
  if (!label || !ref) throw new Error(`--ref takes label=<git ref>, got ${spec}`);
  return { label, image: imageOf(`ref-${label.replace(/\W+/g, '-')}`, ref) };
});

/** How the image runs an app: its CMD on Node 24 with its ENV, the paths a run owns overridden per run. */
const asImage = (label: string, image: ImageApp, more: Partial<Variant> = {}): Variant => ({
  label,
  node: node24,
  args: image.nodeArgs,
  env: image.env,
  olderTree: image !== after,
  ...more,
});

const variants: Variant[] = [
  {
    label: `bare Node HTTP server (the floor), Node ${node24Version}`,
    node: node24,
    args: ['-e', "require('node:http').createServer(() => {}).listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'ready' })))"],
    env: {},
  },
  asImage(`before (${before.commit}), as its Dockerfile runs it`, before),
  asImage('after (this tree), as its Dockerfile runs it', after, { baseline: 'before' }),
];
for (const { label, image } of extra) variants.push(asImage(`${label} (${image.commit})`, image, { baseline: 'before' }));
if (opts.levers) {
  // Each lever alone, on the baseline's bundle.
  const withoutSourceMaps = before.nodeArgs.filter((a) => a !== '--enable-source-maps');
  variants.push(asImage('before, without --enable-source-maps', before, { args: withoutSourceMaps, baseline: 'before' }));
  const cache = join(work, 'before-compile-cache');
  mkdirSync(cache);
  variants.push(
    asImage("before, with Node's compile cache (warmed by a first start)", before, {
      env: { ...before.env, NODE_COMPILE_CACHE: cache },
      baseline: 'before',
      warmCompileCache: true,
    }),
  );
  variants.push(asImage('before, with --max-semi-space-size=1 (MB)', before, { args: ['--max-semi-space-size=1', ...before.nodeArgs], baseline: 'before' }));
  // And each of the image's run-time levers taken away from this tree's app, one at a time.
  const { NODE_COMPILE_CACHE: _cache, ...afterEnvWithoutCache } = after.env;
  variants.push(asImage("after, without the image's compile cache", after, { env: afterEnvWithoutCache, baseline: 'after (' }));
  variants.push(
    asImage('after, without --max-semi-space-size=1', after, {
      args: after.nodeArgs.filter((a) => !a.startsWith('--max-semi-space-size')),
      baseline: 'after (',
    }),
  );
}
if (opts.node20) {
  variants.push(asImage(`before, this machine's Node ${process.version}`, before, { node: process.execPath }));
  variants.push(asImage(`after, this machine's Node ${process.version}`, after, { node: process.execPath, baseline: `before, this machine's` }));
}
if (opts.mcp) {
  variants.push(asImage('before, two MCP servers', before, { mcp: true }));
  variants.push(asImage('after, two MCP servers', after, { mcp: true, baseline: 'before, two MCP' }));
}

// ---- run -------------------------------------------------------------------------------
const example = JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'));
const plain = runtimeConfigFor(parseConfig(example), 'fran');
const withMcp = structuredClone(example);
withMcp.agents.list.find((a: { id: string }) => a.id === 'fran').mcp = {
  servers: {
    everything: { command: process.execPath, args: [mcpPkg('server-everything'), 'stdio'] },
    files: { command: process.execPath, args: [mcpPkg('server-filesystem'), '.'] },
  },
};
const mcpConfig = runtimeConfigFor(parseConfig(withMcp), 'fran');
/**
 * The runtime config without the keys added after the baseline (90433df): a provider's
 * `imageModels` (issue #16). A start reads neither, so every row starts the same agent.
 */
const withoutNewerKeys = (config: typeof plain): typeof plain => {
  const copy = structuredClone(config) as typeof plain & { providers: Record<string, { imageModels?: unknown }> };
  for (const provider of Object.values(copy.providers)) delete provider.imageModels;
  return copy;
};

const cp = await idleControlChannel();
const runEnv = (v: Variant, dir: string): Record<string, string> => ({
  CLAWFLEET_AGENT_ID: 'fran',
  CLAWFLEET_RUNTIME_CONFIG: JSON.stringify((v.olderTree ? withoutNewerKeys : (c: typeof plain) => c)(v.mcp ? mcpConfig : plain)),
  CLAWFLEET_CONTROL_URL: cp.url,
  CLAWFLEET_SECRETS_FD: '3',
  CLAWFLEET_WORKSPACE: join(dir, 'workspace'),
  CLAWFLEET_RUNTIME_STATE: join(dir, 'state'),
  CLAWFLEET_HEALTH_FILE: join(dir, 'alive'),
  CLAWFLEET_TOOL_UIDS: BENCH_TOOL_UIDS.range,
  CLAWFLEET_TOOL_GID: BENCH_TOOL_UIDS.gid,
  CLAWFLEET_WAIT_SECONDS: '1',
});
const results = new Map<Variant, Sample[]>(variants.map((v) => [v, []]));
const cacheNotes: string[] = [];
const loadStart = loadavg()[0]!;
const startedAt = new Date();
// A lever's compile cache is written when a runtime exits: one plain start, stopped by SIGTERM.
for (const v of variants.filter((x) => x.warmCompileCache)) {
  const dir = mkdtempSync(join(work, 'warm-'));
  mkdirSync(join(dir, 'workspace'));
  await once(v, runEnv(v, dir), dir, true);
  rmSync(dir, { recursive: true, force: true });
  const entries = readdirSync(v.env.NODE_COMPILE_CACHE!, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  if (entries === 0) throw new Error(`${v.label}: the warming start wrote no compile cache`);
  say(`${v.label}: ${entries} compile cache entries written by a first start`);
}
// Whether a compile cache (the image's, or a lever's) is taken: Node says so for each module it loads.
for (const v of variants.filter((x) => x.env.NODE_COMPILE_CACHE)) {
  const dir = unshare ? '/tmp/cf-run' : mkdtempSync(join(tmpdir(), 'cf-bench-run-'));
  if (!unshare) mkdirSync(join(dir, 'workspace'));
  const { stderr } = await once(v, { ...runEnv(v, dir), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, dir);
  if (!unshare) rmSync(dir, { recursive: true, force: true });
  const taken = stderr.match(/was accepted/g)?.length ?? 0;
  const compiled = stderr.match(/(not initialized|rejected|failed)/gi)?.length ?? 0;
  say(`${v.label}: ${taken} modules' code came from the image's compile cache, ${compiled} were compiled at start`);
  cacheNotes.push(`${v.label.split(',')[0]}: ${taken} modules from the compile cache up to ready and idle, ${compiled} compiled`);
}
// One start each first, not counted: the page cache holds the files, the compile caches are written.
for (let round = -1; round < RUNS; round++) {
  for (const v of variants) {
    // The run's own files: in its private /tmp (made there by containerLike), else a fresh directory.
    const dir = unshare ? '/tmp/cf-run' : mkdtempSync(join(tmpdir(), 'cf-bench-run-'));
    if (!unshare) mkdirSync(join(dir, 'workspace'));
    const sample = await once(v, runEnv(v, dir), dir);
    if (!unshare) rmSync(dir, { recursive: true, force: true });
    if (round >= 0) results.get(v)!.push(sample);
  }
  say(`round ${round + 1}/${RUNS} done (load ${loadavg()[0]!.toFixed(1)})`);
}
await cp.close();

// ---- report ----------------------------------------------------------------------------
const med = (v: Variant, k: Exclude<keyof Sample, 'stderr'>) => median(results.get(v)!.map((s) => s[k]));
const baselineOf = (v: Variant) => (v.baseline ? variants.find((b) => b.label.startsWith(v.baseline!)) : undefined);
console.log(
  `\nRuntime start as the image runs it, median of ${RUNS} interleaved rounds; ${startedAt.toISOString().slice(0, 16)}Z, ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}.`,
);
console.log(
  `Image's Node ${node24Version}; this machine's ${process.version}. No MCP server unless said; uid-pool sandbox as the image (as root); ${unshare ? 'each run in a PID and mount namespace of its own with an empty /tmp, as in a container (unshare; its few ms are in every row)' : "runs NOT container-like (not root, or no unshare): the sandbox probe sees this machine's /tmp and /proc"}.\n`,
);
console.log('| Runtime | Ready (min–max) | CPU to ready | Waiting for a core (all threads) | Idle RSS | Ready, RSS vs its baseline |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const v of variants) {
  const rs = results.get(v)!.map((s) => s.readyMs);
  const b = baselineOf(v);
  const rssKey: Exclude<keyof Sample, 'stderr'> = v.mcp ? 'treeMb' : 'rssMb';
  const ratio = b ? `${(med(v, 'readyMs') / med(b, 'readyMs')).toFixed(2)}×, ${(med(v, rssKey) / med(b, rssKey)).toFixed(2)}×` : '';
  console.log(
    `| ${v.label} | ${med(v, 'readyMs').toFixed(0)} ms (${Math.min(...rs).toFixed(0)}–${Math.max(...rs).toFixed(0)}) | ${med(v, 'cpuMs').toFixed(0)} ms | ${med(v, 'waitMs').toFixed(0)} ms | ${med(v, rssKey).toFixed(1)} MB${v.mcp ? ' (with children)' : ''} | ${ratio} |`,
  );
}
if (cacheNotes.length) console.log(`\nCompile cache (NODE_DEBUG_NATIVE=COMPILE_CACHE, one extra start): ${cacheNotes.join('; ')}.`);
rmSync(work, { recursive: true, force: true });
