// The runtime image's figures, all from one run (docs/benchmarks.md, "The runtime image"):
// every stage built cold (--no-cache, on the stand-in base, as `cdk deploy` builds its asset)
// and again from the engine's cache; each stage's size above its base and its layers; and the
// runtime stage's container from `docker run` to `ready`, and idle, beside the same app run as a
// bare process on the same Node 24 (bench/runtime-harness.ts builds it as the Dockerfile does),
// rounds interleaved so the machine's load hits both alike. Both talk to a stub of the local
// control plane's channel that never has work, and take their secrets on fd 3 (in the container
// a `sh` moves stdin there first: `docker run` passes no other descriptor).
// Needs an engine: the image tests' (root) or DOCKER_HOST's.
//   npx tsx bench/image.ts [--runs 5] [--no-cold] [--idle-seconds 3]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseConfig } from '../shared/config/load.ts';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import { startEngine } from '../test/support/container-engine.ts';
import { docker } from '../test/support/docker-cli.ts';
import { buildImageAsset, synthImageAssets } from '../test/support/image-assets.ts';
import { IMAGE_STAGES, type ImageStage } from '../test/support/image-fleet.ts';
import { ensureStandInBase } from '../test/support/stand-in-base.ts';
import { ensureNode24 } from './openclaw-install.ts';
import { readKb } from './proc-usage.ts';
import { buildImageApp, idleControlChannel } from './runtime-harness.ts';

const { values: opts } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, 'no-cold': { type: 'boolean', default: false }, 'idle-seconds': { type: 'string', default: '3' } },
});
const RUNS = Number(opts.runs);
const IDLE_MS = Number(opts['idle-seconds']) * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.error(line);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const startedAt = new Date();
const loadStart = loadavg()[0]!;
const engine = await startEngine();
process.env.DOCKER_HOST = engine.host;
const work = mkdtempSync(join(tmpdir(), 'cf-bench-image-'));
try {
  // ---- builds --------------------------------------------------------------------------
  const baseStarted = performance.now();
  const base = await ensureStandInBase();
  const baseSeconds = (performance.now() - baseStarted) / 1000;
  const { assets, remove } = synthImageAssets();
  const builds: Record<string, { cold?: number; cached: number }> = {};
  try {
    for (const stage of IMAGE_STAGES) {
      const tag = `clawfleet-bench/runtime:${stage}`;
      let cold: number | undefined;
      if (!opts['no-cold']) {
        say(`building the ${stage} stage cold …`);
        cold = (await buildImageAsset(assets.get(stage)!, tag, base, { noCache: true })).seconds;
      }
      const cached = (await buildImageAsset(assets.get(stage)!, tag, base)).seconds;
      builds[stage] = { ...(cold !== undefined ? { cold } : {}), cached };
      say(`${stage}: ${cold !== undefined ? `cold ${cold.toFixed(1)} s, ` : ''}cached ${cached.toFixed(1)} s`);
    }
  } finally {
    remove();
  }

  // ---- sizes ---------------------------------------------------------------------------
  const size = async (ref: string) => Number(await docker(['image', 'inspect', '--format', '{{.Size}}', ref]));
  const baseBytes = await size(base);
  const layers = async (ref: string) =>
    (await docker(['history', '--no-trunc', '--format', '{{.Size}}\t{{.CreatedBy}}', ref]))
      .split('\n')
      .map((l) => l.split('\t') as [string, string])
      .filter(([s, by]) => s !== '0B' && by)
      .map(
        ([s, by]) =>
          `${s} ${by
            .replace(/^\/bin\/sh -c /, '')
            .replace(/\s+/g, ' ')
            .slice(0, 70)}`,
      );

  // ---- start to ready, idle memory ------------------------------------------------------
  const { node: node24 } = ensureNode24(join(root, '.cache', 'openclaw'), say);
  const bare = buildImageApp(root, join(work, 'app'), node24);
  const cp = await idleControlChannel();
  const config = JSON.stringify(runtimeConfigFor(parseConfig(JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'))), 'fran'));
  const transport = {
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_RUNTIME_CONFIG: config,
    CLAWFLEET_CONTROL_URL: cp.url,
    CLAWFLEET_SECRETS_FD: '3',
    CLAWFLEET_WAIT_SECONDS: '1',
  };
  const secrets = JSON.stringify({ token: 'bench-token-0123456789', secrets: { OPENAI_API_KEY: 'sk-bench-not-used-000000' } });
  interface Sample {
    readyMs: number;
    rssMb: number;
    /** The container's memory cgroup: what the task's memory limit counts (page cache included). */
    cgroupMb?: number;
  }
  const waitReady = (child: ReturnType<typeof spawn>, started: number) =>
    new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('"msg":"ready"')) resolve(performance.now() - started);
      });
      child.stderr!.on('data', (d) => (out += d));
      child.once('exit', (code) => reject(new Error(`exited ${code} before ready: ${out.slice(-2000)}`)));
    });
  const childOf = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]);

  async function inContainer(n: number): Promise<Sample> {
    const name = `cf-bench-image-${process.pid}-${n}`;
    const env = Object.entries(transport).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const started = performance.now();
    // The image's entrypoint and CMD, with stdin moved to fd 3 on the way.
    const child = spawn(
      'docker',
      [
        'run',
        '-i',
        '--rm',
        '--name',
        name,
        '--network',
        'host',
        ...env,
        '--entrypoint',
        '/usr/bin/tini',
        'clawfleet-bench/runtime:runtime',
        '--',
        '/bin/sh',
        '-c',
        'exec 3<&0 </dev/null; exec "$@"',
        'sh',
        'node',
        '--enable-source-maps',
        '--max-semi-space-size=1',
        '/app/dist/main.mjs',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin!.end(secrets);
    const readyMs = await waitReady(child, started);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const tini = Number(await docker(['inspect', '--format', '{{.State.Pid}}', name]));
    const rssMb = readKb(`/proc/${childOf(tini)}/status`, 'VmRSS') / 1024;
    const cgroup = readFileSync(`/proc/${tini}/cgroup`, 'utf8')
      .split('\n')
      .find((l) => l.split(':')[1]?.split(',').includes('memory'));
    const cgroupMb = cgroup ? Number(readFileSync(join('/sys/fs/cgroup/memory', cgroup.split(':')[2]!, 'memory.usage_in_bytes'), 'utf8')) / 1e6 : undefined;
    const exited = new Promise((r) => child.once('exit', r));
    await docker(['stop', name]);
    await exited;
    return { readyMs, rssMb, ...(cgroupMb !== undefined ? { cgroupMb } : {}) };
  }

  async function asProcess(): Promise<Sample> {
    const dir = mkdtempSync(join(work, 'run-'));
    mkdirSync(join(dir, 'workspace'));
    const started = performance.now();
    const child = spawn(node24, bare.nodeArgs, {
      env: {
        PATH: process.env.PATH ?? '',
        ...bare.env,
        ...transport,
        CLAWFLEET_WORKSPACE: join(dir, 'workspace'),
        CLAWFLEET_RUNTIME_STATE: join(dir, 'state'),
        CLAWFLEET_HEALTH_FILE: join(dir, 'alive'),
        // The bench's own uids (bench/runtime-start.ts's): kill -1 as one of them touches nothing else.
        CLAWFLEET_TOOL_UIDS: '20401-20432',
        CLAWFLEET_TOOL_GID: '20400',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      cwd: '/',
    });
    (child.stdio[3] as NodeJS.WritableStream).end(secrets);
    const readyMs = await waitReady(child, started);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const rssMb = readKb(`/proc/${child.pid}/status`, 'VmRSS') / 1024;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    return { readyMs, rssMb };
  }

  const samples = { container: [] as Sample[], process: [] as Sample[] };
  // One start each first, not counted: the page cache holds the files.
  for (let round = -1; round < RUNS; round++) {
    const c = await inContainer(round + 1);
    const p = await asProcess();
    if (round >= 0) {
      samples.container.push(c);
      samples.process.push(p);
    }
    say(`round ${round + 1}/${RUNS} (load ${loadavg()[0]!.toFixed(1)})`);
  }
  await cp.close();

  // ---- report --------------------------------------------------------------------------
  console.log(
    `\nThe runtime image, one run: ${startedAt.toISOString().slice(0, 16)}Z, ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}; engine ${engine.source === 'own' ? "Debian's docker.io (overlay2)" : 'DOCKER_HOST'}, BuildKit.`,
  );
  console.log(`Stand-in base ${base}: ${mb(baseBytes)}${baseSeconds > 5 ? `, built this run in ${baseSeconds.toFixed(0)} s` : ' (cached)'}.\n`);
  console.log('| Stage | Build, cold | Build, cached | Size | Above the base | Layers above the base |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const stage of IMAGE_STAGES as ImageStage[]) {
    const ref = `clawfleet-bench/runtime:${stage}`;
    const bytes = await size(ref);
    const own = (await layers(ref)).slice(0, -(await layers(base)).length || undefined);
    const b = builds[stage]!;
    console.log(
      `| ${stage} | ${b.cold !== undefined ? `${b.cold.toFixed(0)} s` : '–'} | ${b.cached.toFixed(1)} s | ${mb(bytes)} | ${mb(bytes - baseBytes)} | ${own.join('; ')} |`,
    );
  }
  const row = (label: string, xs: Sample[]) => {
    const ready = xs.map((s) => s.readyMs);
    const cg = xs.flatMap((s) => (s.cgroupMb !== undefined ? [s.cgroupMb] : []));
    return `| ${label} | ${median(ready).toFixed(0)} ms (${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}) | ${median(xs.map((s) => s.rssMb)).toFixed(1)} MB | ${cg.length ? `${median(cg).toFixed(1)} MB` : '–'} |`;
  };
  console.log(`\nStart to \`ready\` and idle (${IDLE_MS / 1000} s after), median of ${RUNS} interleaved rounds:\n`);
  console.log('| Runtime | Start to ready (min–max) | Idle RSS (the runtime) | Container memory (cgroup) |');
  console.log('| --- | --- | --- | --- |');
  console.log(row('the runtime stage, `docker run` (network host) to ready', samples.container));
  console.log(row('the same app as a bare process on Node 24', samples.process));
} finally {
  rmSync(work, { recursive: true, force: true });
  await engine.stop();
}
