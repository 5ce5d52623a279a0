// runtime.kind "openclaw" beside "native", on the same fake model, in one local fleet
// (`npm start`'s, in-process): start to ready of each agent's runtime (spawn → its `ready`
// line; for openclaw that includes starting its gateway and connecting the bridge), idle
// memory of each runtime's process tree (RSS and PSS, the gateway and its helpers included),
// and a turn end to end (chat POST → the answer in the chat) for each kind.
// Usage: npx tsx bench/openclaw-kind.ts [turns=5] [starts=2]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalFleet, type LocalFleet } from '../local/fleet.ts';
import { ensureOpenclaw, OPENCLAW_VERSION } from '../local/openclaw-install.ts';
import { memoryLogger } from '../shared/log.ts';
import { start as startModel } from '../test/support/fake-model.ts';
import { chatLines, postChat } from '../test/support/local-api.ts';
import { loadAverage, median } from './openclaw-measure.ts';
import { treeUsage } from './proc-usage.ts';

const turns = Number(process.argv[2] ?? 5);
const starts = Number(process.argv[3] ?? 2);
const AGENTS = { fran: 'openclaw', grif: 'native' } as const;
type AgentId = keyof typeof AGENTS;

ensureOpenclaw(undefined, (l) => console.log(`openclaw: ${l}`));
const model = await startModel({ responder: (r) => ({ text: JSON.stringify(r.body).includes('bench turn') ? 'bench answer' : 'ok' }) });
const dir = mkdtempSync(join(tmpdir(), 'cf-bench-openclaw-kind-'));
writeFileSync(
  join(dir, 'clawfleet.json'),
  JSON.stringify({
    fleet: 'demo',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 1, memoryMb: 2048 } },
      list: [
        { id: 'fran', name: 'Fran', default: true, runtime: { kind: 'openclaw' } },
        { id: 'grif', name: 'Grif' },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
  }),
);
writeFileSync(
  join(dir, 'secrets.json'),
  JSON.stringify({
    'clawfleet/demo/agents/fran': { OPENAI_API_KEY: 'sk-bench-fran-0123456789' },
    'clawfleet/demo/agents/grif': { OPENAI_API_KEY: 'sk-bench-grif-0123456789' },
  }),
);

const loadBefore = loadAverage();
const readyMs: Record<AgentId, number[]> = { fran: [], grif: [] };
const memory: Record<AgentId, { rssKb: number; pssKb: number; processes: number }[]> = { fran: [], grif: [] };
const turnMs: Record<AgentId, number[]> = { fran: [], grif: [] };
let fleet: LocalFleet | undefined;

const readyLines: { agentId: string; at: number }[] = [];
async function waitReady(agentId: AgentId, after: number): Promise<number> {
  for (;;) {
    const hit = readyLines.find((l) => l.agentId === agentId && l.at >= after);
    if (hit) return hit.at;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function turn(f: LocalFleet, agentId: AgentId, n: number): Promise<number> {
  const before = (await chatLines(f, agentId)).length;
  const t0 = performance.now();
  const res = await postChat(f, agentId, `bench turn ${n}`);
  if (res.status !== 202) throw new Error(`chat POST ${res.status}`);
  for (;;) {
    const lines = await chatLines(f, agentId);
    if (lines.slice(before).some((l) => l.role === 'agent')) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 10));
  }
}

try {
  for (let s = 0; s < starts; s++) {
    const t0 = Date.now();
    fleet = await startLocalFleet({
      configPath: join(dir, 'clawfleet.json'),
      secretsPath: join(dir, 'secrets.json'),
      stateDir: join(dir, `state-${s}`),
      port: 0,
      log: memoryLogger(),
      onRuntimeLine: (agentId, line) => {
        if (line.msg === 'ready') readyLines.push({ agentId, at: Date.parse(String(line.time)) });
      },
    });
    for (const id of Object.keys(AGENTS) as AgentId[]) {
      const at = await waitReady(id, t0);
      readyMs[id].push(at - (fleet.supervisor.info(id).startedAt ?? t0));
    }
    // Idle: 10 s after both are ready, every process of each runtime's tree.
    await new Promise((r) => setTimeout(r, 10_000));
    for (const id of Object.keys(AGENTS) as AgentId[]) {
      const u = treeUsage(fleet.supervisor.pid(id)!);
      memory[id].push({ rssKb: u.rssKb, pssKb: u.pssKb, processes: u.processes });
    }
    if (s === starts - 1) {
      for (const id of Object.keys(AGENTS) as AgentId[]) {
        await turn(fleet, id, 0); // warm-up
        for (let i = 1; i <= turns; i++) turnMs[id].push(await turn(fleet, id, i));
      }
    }
    await fleet.stop();
    fleet = undefined;
  }
} finally {
  await fleet?.stop();
  await model.close();
}

const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;
console.log(
  `\nOpenClaw ${OPENCLAW_VERSION} (managed, Node 24) beside native (Node ${process.versions.node}); ${starts} starts, ${turns} turns each; load ${loadBefore} → ${loadAverage()}`,
);
console.log('| Kind | Start to ready (median, min–max) | Idle RSS | Idle PSS | Processes | Turn, end to end (median, min–max) |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const id of Object.keys(AGENTS) as AgentId[]) {
  const r = readyMs[id];
  const m = memory[id];
  const t = turnMs[id];
  console.log(
    `| ${AGENTS[id]} | ${(median(r) / 1000).toFixed(2)} s (${(Math.min(...r) / 1000).toFixed(2)}–${(Math.max(...r) / 1000).toFixed(2)}) | ${mb(median(m.map((x) => x.rssKb)))} | ${mb(median(m.map((x) => x.pssKb)))} | ${median(m.map((x) => x.processes))} | ${Math.round(median(t))} ms (${Math.round(Math.min(...t))}–${Math.round(Math.max(...t))}) |`,
  );
}
