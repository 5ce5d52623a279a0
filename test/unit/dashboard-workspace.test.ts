// The agent page's workspace row: its size and last push or pull, measured now locally and
// taken from the last transfer's record on AWS (saying so), escaped, and a source that
// fails costs the row, not the page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureWorkspace } from '../../shared/adapters/fs/staged-transfer.ts';
import { FileWorkspaceSyncLog } from '../../shared/adapters/local/file-workspace-sync-log.ts';
import { InMemoryAgentMetrics } from '../../shared/adapters/memory/in-memory-agent-metrics.ts';
import { InMemoryAgentRegistry } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { InMemoryWorkspaceSyncLog } from '../../shared/adapters/memory/in-memory-workspace-sync-log.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { buildAgentDetail, type DashboardSources } from '../../shared/dashboard/fleet-view.ts';
import { measuredWorkspace, workspaceFromSyncLog } from '../../shared/dashboard/workspace-view.ts';
import { memoryLogger } from '../../shared/log.ts';
import { agentFragment } from '../../shared/dashboard/pages/agent-page.ts';
import { tempDir } from '../support/temp-dirs.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;

function sources(workspace: DashboardSources['workspace']): DashboardSources & { log: ReturnType<typeof memoryLogger> } {
  return {
    config: loadConfigFile('clawfleet.json'),
    where: 'aws',
    registry: new InMemoryAgentRegistry(),
    queues: { stats: async () => ({ depth: 0, dlq: 0, outboxDlq: 0 }) },
    sessions: new InMemorySessionRegistry(),
    pairings: new InMemoryPairingStore(),
    metrics: new InMemoryAgentMetrics(),
    clock: { now: () => NOW },
    log: memoryLogger(),
    chat: false,
    ...(workspace ? { workspace } : {}),
  };
}

describe('the agent page’s workspace row', () => {
  it('on AWS shows the size the last push or pull found, and says it is that one', async () => {
    const log = new InMemoryWorkspaceSyncLog();
    await log.record('fran', {
      direction: 'pull',
      at: NOW - 3 * HOUR,
      files: 34,
      bytes: 1_300_000,
      workspaceFiles: 34,
      workspaceBytes: 1_300_000,
      where: '/home/sam/<fran>',
    });
    const detail = await buildAgentDetail('fran', sources(workspaceFromSyncLog(log)));
    expect(detail.workspace?.size).toEqual({ files: 34, bytes: 1_300_000, asOf: 'last-sync', complete: true });
    const page = agentFragment(detail).text;
    expect(page).toMatch(
      /<dt>workspace<\/dt><dd><span class="workspace">1\.2 MiB in 34 files \(at the last push\/pull\) · last pulled <span title="2026-12-01T09:00:00Z \(to \/home\/sam\/&lt;fran&gt;\)">3 h ago<\/span>/,
    );
    // An agent never transferred: no size is known on AWS, and the page says so.
    expect(agentFragment(await buildAgentDetail('jerry', sources(workspaceFromSyncLog(log)))).text).toMatch(
      /<dd><span class="workspace">empty · <span class="muted">never pushed or pulled<\/span>/,
    );
  });

  it('locally measures the workspace now, without following links, and adds the last transfer', async () => {
    const state = tempDir('cf-dashws-');
    const ws = join(state, 'workspaces', 'fran');
    mkdirSync(join(ws, 'memory'), { recursive: true });
    writeFileSync(join(ws, 'MEMORY.md'), 'x'.repeat(1000));
    writeFileSync(join(ws, 'memory', 'a.md'), 'y'.repeat(24));
    const log = new FileWorkspaceSyncLog(state);
    await log.record('fran', { direction: 'push', at: NOW - 60_000, files: 2, bytes: 1024, workspaceFiles: 2, workspaceBytes: 1024, where: '/tmp/mine' });
    const view = measuredWorkspace((id) => measureWorkspace(join(state, 'workspaces', id)), log);
    const page = agentFragment(await buildAgentDetail('fran', { ...sources(view), where: 'local' })).text;
    expect(page).toMatch(/1\.0 KiB in 2 files · last pushed <span title="[^"]+ \(from \/tmp\/mine\)">1 min ago<\/span>/);
    expect(measureWorkspace(ws, 1)).toMatchObject({ complete: false });
  });

  it('loses only the row when its source fails, and logs why', async () => {
    const src = sources(async () => {
      throw new Error('ProvisionedThroughputExceededException');
    });
    const detail = await buildAgentDetail('fran', src);
    expect(detail.workspace).toBeUndefined();
    expect(agentFragment(detail).text).not.toContain('<dt>workspace</dt>');
    expect(src.log.lines).toContainEqual(expect.objectContaining({ msg: 'dashboard: workspace figures unreadable', agentId: 'fran' }));
  });
});
