// What the sandbox costs: choosing it at runtime start (the probe runs one command through
// it), and each exec call — `sh -c true` and a small real command — in bubblewrap, in the
// tool uid pool (as root only), and unsandboxed for comparison.
//   npx tsx bench/exec-sandbox.ts [calls]
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseSandbox } from '../shared/adapters/sandbox/choose-sandbox.ts';
import { Unsandboxed } from '../shared/adapters/sandbox/no-sandbox.ts';
import { baseSandboxEnv, type Sandbox } from '../shared/adapters/sandbox/sandbox-port.ts';
import { runSandboxed } from '../runtime-image/src/tools/exec-tool.ts';

const CALLS = Number(process.argv[2] ?? 50);
const parent = mkdtempSync(join(tmpdir(), 'cf-bench-sandbox-'));
chmodSync(parent, 0o711);
const workspace = join(parent, 'workspace');
mkdirSync(workspace);

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[s.length >> 1]!.toFixed(1)} ms   p90 ${s[Math.floor(s.length * 0.9)]!.toFixed(1)} ms`;
};

async function time(f: () => Promise<unknown>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

console.log(`exec in its sandbox, ${CALLS} calls each, Node ${process.version}`);
const choose = await time(async () => {
  const c = await chooseSandbox({ mode: 'bwrap', hide: [] }, workspace);
  if (!c.sandbox) throw new Error(c.unavailable);
}, 10);
console.log(`${'choosing bubblewrap at start (probe included)'.padEnd(62)} ${stats(choose)}`);

const boxes: [string, Sandbox][] = [['unsandboxed (process group only)', new Unsandboxed(workspace)]];
const bwrap = await chooseSandbox({ mode: 'bwrap', hide: [] }, workspace);
if (bwrap.sandbox) boxes.push(['bubblewrap', bwrap.sandbox]);
if (process.getuid?.() === 0) {
  const t = performance.now();
  const pool = await chooseSandbox({ mode: 'uid-pool', toolUids: [20301, 20302], toolGid: 20300, hide: [] }, workspace);
  if (pool.sandbox) {
    console.log(`${'choosing the tool uid pool at start (probe included)'.padEnd(62)} ${(performance.now() - t).toFixed(1)} ms (once)`);
    boxes.push(['tool uid pool (setpriv, kill -1 as the uid after)', pool.sandbox]);
  } else console.log(`tool uid pool: ${pool.unavailable}`);
} else console.log('tool uid pool: skipped (needs root)');

for (const [command, label] of [
  ['true', 'sh -c true'],
  ['ls -la /usr/bin | wc -l', 'ls -la /usr/bin | wc -l'],
] as const) {
  for (const [name, sandbox] of boxes) {
    const runs = await time(
      () => runSandboxed(['/bin/sh', '-c', command], { sandbox, env: baseSandboxEnv(workspace), network: true, timeoutMs: 10_000, maxOutputBytes: 32_000 }),
      CALLS,
    );
    console.log(`${`${label}: ${name}`.padEnd(62)} ${stats(runs)}`);
  }
}
