// What a local runtime's box costs (issue #27, item 5): the runtime as `npm start` runs it
// (this tree's bundle on this machine's Node, the command local/supervisor.ts builds), in its
// bubblewrap box and with runtime.localSandbox "off", side by side in one run (rounds
// interleaved, so load on the machine hits both alike): start to `ready`, and idle memory — the
// runtime's own RSS, and RSS and PSS summed over every process the start leaves (the box's
// bwraps and their inits too). Each run has a fresh workspace, as an agent's first start has;
// the example config's `fran` (exec allowed, so the runtime probes exec's own sandbox at start,
// nested in the box where there is one) on the offline model.
//   npx tsx bench/box-start.ts [--runs 7] [--idle-seconds 3]
// (bench/runtime-start.ts measures the runtime as the image runs it; this, as `npm start` does.)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { boxingHere } from '../local/box-check.ts';
import { ensureBubblewrap } from '../local/bubblewrap-install.ts';
import { Supervisor } from '../local/supervisor.ts';
import type { AgentRuntimeSpec } from '../local/runtime-launcher.ts';
import { parseConfig } from '../shared/config/load.ts';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import { createLogger } from '../shared/log.ts';
import { processTree, readKb, treeUsage } from './proc-usage.ts';
import { idleControlChannel } from './runtime-harness.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Sample {
  readyMs: number;
  runtimeRssMb: number;
  treeRssMb: number;
  treePssMb: number;
  processes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function benchBox(runs: number, idleMs: number, say: (line: string) => void): Promise<void> {
  const cp = await idleControlChannel();
  const work = mkdtempSync(join(tmpdir(), 'cf-bench-box-'));
  const boxing = await boxingHere(() => ensureBubblewrap(say));
  const supervisor = new Supervisor(
    cp.url,
    join(work, 'state', 'workspaces'),
    createLogger({ component: 'bench' }, () => {}),
    { onLine: () => {}, onExit: () => {} },
    { boxing, hide: [join(work, 'state')] },
  );
  const config = runtimeConfigFor(parseConfig(JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'))), 'fran');
  const spec = (localSandbox: 'required' | 'off'): AgentRuntimeSpec => ({
    agentId: 'fran',
    config: { ...config, agent: { ...config.agent, runtime: { ...config.agent.runtime, localSandbox } } },
    secrets: {},
    offlineReason: 'the bench gives it no key',
  });
  const variants = [
    { label: 'unboxed (runtime.localSandbox "off")', spec: spec('off') },
    { label: `in its box${boxing.dropTo ? ` (as root: two stages, uid ${boxing.dropTo.uid})` : ''}`, spec: spec('required') },
  ];
  const results = new Map(variants.map((v) => [v, [] as Sample[]]));

  async function once(agent: AgentRuntimeSpec): Promise<Sample> {
    for (const dir of ['workspaces', 'runtime']) rmSync(join(work, 'state', dir, 'fran'), { recursive: true, force: true });
    mkdirSync(join(work, 'state'), { recursive: true, mode: 0o700 });
    const began = performance.now();
    const start = supervisor.startFor(agent);
    const child = spawn(start.file, start.args, { env: start.env, cwd: start.cwd, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true });
    (child.stdio[3] as Writable).end(JSON.stringify({ token: 'bench-token-0123456789', secrets: {} }));
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const readyMs = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('"msg":"ready"')) resolve(performance.now() - began);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before ready: ${out.slice(-2000)} ${err.slice(-2000)}`)));
    });
    // Idle: what a start leaves for after `ready` has run; GC settles.
    await new Promise((r) => setTimeout(r, idleMs));
    const tree = processTree(child.pid!);
    const runtime = tree.find((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmd.startsWith(`${process.execPath}\0`) && cmd.includes('runtime-image');
      } catch {
        return false;
      }
    });
    if (runtime === undefined) throw new Error('no runtime process found');
    const usage = treeUsage(child.pid!);
    const runtimeRssMb = readKb(`/proc/${runtime}/status`, 'VmRSS') / 1024;
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin!.write('SIGTERM\n'); // as the supervisor stops it
    await exited;
    return {
      readyMs,
      runtimeRssMb,
      treeRssMb: usage.rssKb / 1024,
      treePssMb: usage.pssKb / 1024,
      processes: usage.processes,
    };
  }

  const loadStart = loadavg()[0]!;
  const startedAt = new Date();
  // One start each first, not counted: the page cache holds the files.
  for (let round = -1; round < runs; round++) {
    for (const v of variants) {
      const sample = await once(v.spec);
      if (round >= 0) results.get(v)!.push(sample);
    }
    say(`round ${round + 1}/${runs} done (load ${loadavg()[0]!.toFixed(1)})`);
  }
  // The box alone, without the runtime's own start to hide in: /bin/true run through the
  // command local mode builds (its start included: the folders made, as root given to the box's
  // user), against /bin/true run plainly the same way. Many calls, interleaved.
  const calls = runs * 5;
  const bare: number[] = [];
  const boxed: number[] = [];
  for (let i = 0; i < calls; i++) {
    for (const [agent, into] of [
      [variants[0]!.spec, bare],
      [variants[1]!.spec, boxed],
    ] as const) {
      const t0 = performance.now();
      const start = supervisor.startFor(agent, ['/bin/true']);
      const code = await new Promise((r) => spawn(start.file, start.args, { env: start.env, cwd: start.cwd, stdio: 'ignore' }).once('exit', r));
      if (code !== 0) throw new Error(`/bin/true exited ${code}`);
      into.push(performance.now() - t0);
    }
  }
  await cp.close();
  rmSync(work, { recursive: true, force: true });

  const med = (v: (typeof variants)[number], k: keyof Sample) => median(results.get(v)!.map((s) => s[k]));
  console.log(
    `\nA local runtime's box: median of ${runs} interleaved rounds; ${startedAt.toISOString().slice(0, 16)}Z, ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}.`,
  );
  console.log(`Idle after ${idleMs / 1000} s; the example's fran on the offline model, a fresh workspace each start.\n`);
  console.log('| Runtime | Ready (min–max) | Idle RSS, the runtime | Idle RSS, all its processes | Idle PSS, all its processes | Processes |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const v of variants) {
    const rs = results.get(v)!.map((s) => s.readyMs);
    console.log(
      `| ${v.label} | ${med(v, 'readyMs').toFixed(0)} ms (${Math.min(...rs).toFixed(0)}–${Math.max(...rs).toFixed(0)}) | ${med(v, 'runtimeRssMb').toFixed(1)} MB | ${med(v, 'treeRssMb').toFixed(1)} MB | ${med(v, 'treePssMb').toFixed(1)} MB | ${med(v, 'processes')} |`,
    );
  }
  const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
  console.log(
    `\nThe box alone, ${calls} calls each: /bin/true plainly ${median(bare).toFixed(1)} ms (p90 ${p90(bare).toFixed(1)}), through the box ${median(boxed).toFixed(1)} ms (p90 ${p90(boxed).toFixed(1)}): the box adds ${(median(boxed) - median(bare)).toFixed(1)} ms to a start.`,
  );
}

const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '7' }, 'idle-seconds': { type: 'string', default: '3' } } });
await benchBox(Number(opts.runs), Number(opts['idle-seconds']) * 1000, (line) => console.error(line));
