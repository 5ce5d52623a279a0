// Start-to-ready time and idle memory of clawfleet against the OpenClaw gateway, started on
// this machine for the same agents (clawfleet.json's example fleet), side by side in one run:
//   - the OpenClaw gateway (`openclaw gateway run`), all agents in one process, Node 24;
//   - clawfleet's runtimes as the image runs them, one process per agent, on the same Node 24;
//   - `clawfleet start` (= `npm start`): the local control plane plus a runtime per agent;
//   - one agent alone on each side.
// OpenClaw and Node 24 are installed on demand, pinned, into .cache/openclaw/.
// Ready: the gateway's "[gateway] ready" log line (then /readyz is asked once and must be
// 200); each runtime's `ready` line. Memory: RSS and PSS summed over every process tree,
// 5 s after ready; CPU: the trees' CPU seconds from spawn to that moment. Each configuration runs once to warm up (figures shown apart), then the
// rounds interleave the configurations so load from other work on the machine falls on all.
//   npx tsx bench/openclaw-compare.ts [runs]     (default 5)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../shared/config/load.ts';
import { start as startModel } from '../test/support/fake-model.ts';
import { freePort } from './emulator.ts';
import { localFleetSpec, runtimeSpec, withFakeModel } from './openclaw-clawfleet-side.ts';
import { assertGatewayReady, gatewaySpec } from './openclaw-gateway.ts';
import { ensureOpenclaw, type OpenclawInstall } from './openclaw-install.ts';
import { loadAverage, measureGroup, median, type GroupSample, type ProcessSpec } from './openclaw-measure.ts';
import { buildRuntimeBundle, idleControlChannel } from './runtime-harness.ts';

const RUNS = Number(process.argv[2] ?? 5);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 50) {
  console.error(`usage: npx tsx bench/openclaw-compare.ts [runs]  (runs: a whole number from 1 to 50, got "${process.argv[2]}")`);
  process.exit(2);
}
const IDLE_MS = 5_000;
const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, '.cache', 'openclaw');

const loadAtStart = loadAverage();
console.log(
  `clawfleet against the OpenClaw gateway: start to ready and idle memory, ${RUNS} runs each after one warm-up; load average at start ${loadAtStart}`,
);

let openclaw: OpenclawInstall | undefined;
let openclawProblem: string | undefined;
try {
  openclaw = ensureOpenclaw(cacheDir, (line) => console.log(`  ${line}`));
} catch (err) {
  openclawProblem = (err as Error).message;
  console.error(`\nOpenClaw could not be installed, so only the clawfleet side is measured:\n${openclawProblem}\n`);
}
const node24 = openclaw?.node;

const fleet = loadConfigFile(join(root, 'clawfleet.json'));
const agentIds = fleet.agents.list.map((a) => a.id);
// One light agent for the single-agent rows: the first that is not the default.
const single = (fleet.agents.list.find((a) => !a.default) ?? fleet.agents.list[0]!).id;
const model = await startModel();
const fakeFleet = withFakeModel(fleet, model.baseUrls);
const work = mkdtempSync(join(tmpdir(), 'cf-openclaw-bench-'));
const bundle = buildRuntimeBundle(root, join(work, 'bundle'));
const channel = await idleControlChannel();

interface Configuration {
  label: string;
  node: string;
  agents: number;
  /** Which row this one is compared with (same agent count, the gateway). */
  against?: string;
  specs: ProcessSpec[];
  afterReady?: () => Promise<void>;
}

async function gatewayConfiguration(label: string, ids: string[], dirName: string): Promise<Configuration> {
  const port = await freePort();
  const spec = gatewaySpec({
    name: label,
    node: openclaw!.node,
    cli: openclaw!.cli,
    fleet,
    agentIds: ids,
    port,
    dir: join(work, dirName),
    tmpDir: join(cacheDir, 'tmp'),
    baseUrls: model.baseUrls,
  });
  return { label, node: 'Node 24', agents: ids.length, specs: [spec], afterReady: () => assertGatewayReady(port) };
}

const runtimes = (ids: string[], node: string): ProcessSpec[] =>
  ids.map((agentId) =>
    runtimeSpec({ node, bundle, fleet: fakeFleet, agentId, controlUrl: channel.url, workspace: join(work, 'workspaces', agentId), home: work }),
  );

const GATEWAY_ALL = `OpenClaw gateway, ${agentIds.length} agents`;
const GATEWAY_ONE = `OpenClaw gateway, 1 agent (${single})`;
const configurations: Configuration[] = [];
if (openclaw) {
  configurations.push(await gatewayConfiguration(GATEWAY_ALL, agentIds, 'openclaw-all'));
}
configurations.push({
  label: `clawfleet, ${agentIds.length} runtimes (bundle)`,
  node: node24 ? 'Node 24' : `Node ${process.versions.node} (no Node 24)`,
  agents: agentIds.length,
  against: GATEWAY_ALL,
  specs: runtimes(agentIds, node24 ?? process.execPath),
});
configurations.push({
  // better-sqlite3 in node_modules is built for this checkout's Node, so local mode runs on it.
  label: `clawfleet start (control plane + ${agentIds.length} runtimes)`,
  node: `Node ${process.versions.node.split('.').slice(0, 2).join('.')}`,
  agents: agentIds.length,
  against: GATEWAY_ALL,
  specs: [localFleetSpec({ node: process.execPath, repo: root, fleet: fakeFleet, dir: join(work, 'local') })],
});
if (openclaw) configurations.push(await gatewayConfiguration(GATEWAY_ONE, [single], 'openclaw-one'));
configurations.push({
  label: `clawfleet, 1 runtime (${single}, bundle)`,
  node: node24 ? 'Node 24' : `Node ${process.versions.node}`,
  agents: 1,
  against: GATEWAY_ONE,
  specs: runtimes([single], node24 ?? process.execPath),
});

const samples = new Map<string, GroupSample[]>(configurations.map((c) => [c.label, []]));
const warmups = new Map<string, GroupSample>();
const failures = new Map<string, string>();
let modelRequests = 0;

async function runOnce(c: Configuration): Promise<GroupSample | undefined> {
  if (failures.has(c.label)) return undefined;
  const before = model.requests().length;
  try {
    return await measureGroup(c.specs, { idleMs: IDLE_MS, afterReady: c.afterReady });
  } catch (err) {
    failures.set(c.label, (err as Error).message);
    console.error(`\n${c.label} failed:\n${(err as Error).message}\n`);
    return undefined;
  } finally {
    modelRequests += model.requests().length - before;
  }
}

const mb = (kb: number) => kb / 1024;
const brief = (s: GroupSample) =>
  `ready ${(s.readyMs / 1000).toFixed(2)} s, CPU ${s.cpuSeconds.toFixed(1)} s, RSS ${mb(s.rssKb).toFixed(0)} MB, PSS ${mb(s.pssKb).toFixed(0)} MB, ${s.processes} processes`;

try {
  console.log(`\nwarm-up (first start: fresh state; for OpenClaw, its compile cache filled if this is the first start after install)`);
  for (const c of configurations) {
    const s = await runOnce(c);
    if (s) warmups.set(c.label, s);
    console.log(`  ${c.label.padEnd(48)} ${s ? brief(s) : 'failed'}`);
  }
  for (let i = 1; i <= RUNS; i++) {
    for (const c of configurations) {
      const s = await runOnce(c);
      if (s) samples.get(c.label)!.push(s);
    }
    console.log(`round ${i}/${RUNS} done (load average ${loadAverage()})`);
  }
} finally {
  await channel.close();
  await model.close();
  rmSync(work, { recursive: true, force: true });
}

const loadAtEnd = loadAverage();
const summary = new Map<string, { ready: number; cpu: number; rss: number; pss: number; processes: number; readyRange: string }>();
for (const c of configurations) {
  const xs = samples.get(c.label)!;
  if (!xs.length) continue;
  const ready = xs.map((s) => s.readyMs);
  summary.set(c.label, {
    ready: median(ready),
    cpu: median(xs.map((s) => s.cpuSeconds)),
    rss: mb(median(xs.map((s) => s.rssKb))),
    pss: mb(median(xs.map((s) => s.pssKb))),
    processes: median(xs.map((s) => s.processes)),
    readyRange: `${(Math.min(...ready) / 1000).toFixed(2)}–${(Math.max(...ready) / 1000).toFixed(2)}`,
  });
}

console.log(
  `\nMedian of ${RUNS} runs; memory ${IDLE_MS / 1000} s after ready, summed over all process trees. Node ${process.versions.node} (bench, local mode), Node 24: ${openclaw ? openclaw.node : 'not installed'}`,
);
console.log(
  `| Configuration | Node | Processes | Ready, median (min–max) | CPU to ready + idle | Idle RSS | Idle PSS | PSS per agent | Ready, × gateway | PSS, × gateway |`,
);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const c of configurations) {
  const s = summary.get(c.label);
  if (!s) {
    console.log(`| ${c.label} | ${c.node} | — | failed: ${(failures.get(c.label) ?? 'no run').split('\n')[0]} | | | | | | |`);
    continue;
  }
  const base = c.against ? summary.get(c.against) : undefined;
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : '—');
  console.log(
    `| ${c.label} | ${c.node} | ${s.processes} | ${(s.ready / 1000).toFixed(2)} s (${s.readyRange}) | ${s.cpu.toFixed(1)} s | ${s.rss.toFixed(0)} MB | ${s.pss.toFixed(0)} MB | ${(s.pss / c.agents).toFixed(0)} MB | ${ratio(s.ready, base?.ready)} | ${ratio(s.pss, base?.pss)} |`,
  );
}
console.log(`\nfirst start (warm-up, not in the medians):`);
for (const [label, s] of warmups) console.log(`  ${label.padEnd(48)} ${brief(s)}`);
console.log(`model requests while idle: ${modelRequests} (the fake model server counts them; 0 means no side called a model)`);
if (openclawProblem) console.log(`\nOpenClaw side not measured: ${openclawProblem.split('\n')[0]}`);
console.log(`load average at start ${loadAtStart}, at end ${loadAtEnd}`);
if (failures.size) process.exitCode = 1;
