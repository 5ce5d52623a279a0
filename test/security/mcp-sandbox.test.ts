// A stdio MCP server configured with `sandbox: true` runs in the sandbox exec uses
// (bubblewrap here): it gets only PATH, HOME (the workspace), LANG and the secrets its
// config names; it sees no other process and no $HOME; and when the host stops it,
// nothing it started is left — a `setsid` grandchild included, which a process-group kill
// alone would miss. The same server unsandboxed is the control: the escapee outlives it.
import { copyFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { McpHost } from '../../runtime-image/src/mcp/mcp-host.ts';
import { livingWith, uniqueSleep } from '../support/processes.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

const SERVER = fileURLToPath(new URL('./fixtures/probe-mcp-server.mjs', import.meta.url));
const TOKEN = 'mcp-probe-token-0123456789abcdef';
const OTHER_SECRET = 'sk-not-for-the-mcp-server-0123456789';
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** An MCP host with the probe server, which sits in its workspace (the one place a sandboxed server sees besides the system). */
async function hostWith(sandboxed: boolean, marker: string) {
  const workspace = realpathSync(tempDir('cf-mcp-sandbox-'));
  copyFileSync(SERVER, join(workspace, 'server.mjs'));
  const log = memoryLogger();
  const host = new McpHost(
    {
      probe: {
        command: process.execPath,
        args: [join(workspace, 'server.mjs'), marker, process.env.HOME ?? '/root'],
        env: { PROBE_TOKEN: 'PROBE_TOKEN' },
        sandbox: sandboxed,
      },
    },
    {
      workspace,
      runtimeState: join(workspace, '.clawfleet'),
      secrets: { PROBE_TOKEN: TOKEN, OPENAI_API_KEY: OTHER_SECRET },
      log,
      sandbox: sandboxed ? { sandbox: await bwrapSandbox(workspace) } : undefined,
    },
  );
  await host.start();
  return { host, workspace, log };
}

async function probe(host: McpHost): Promise<{ uid: number; env: Record<string, string>; pids: number[]; home: unknown; parentEnviron: string }> {
  const tool = host.tools().find((t) => t.name === 'probe__probe');
  if (!tool) throw new Error(`no probe tool; MCP status ${JSON.stringify(host.status())}`);
  const result = await tool.run({}, { signal: new AbortController().signal, sessionKey: 's', inboundId: 'i', request: async () => 'x' });
  return JSON.parse(result.text);
}

describe('a stdio MCP server with sandbox: true', () => {
  it('gets only its named secrets and the sandbox’s environment, sees no other process and no $HOME', async () => {
    const marker = uniqueSleep();
    const { host, workspace } = await hostWith(true, marker);
    cleanups.push(() => host.stop());
    expect(host.status().probe).toMatchObject({ state: 'ready' });
    const seen = await probe(host);
    // bwrap sets PWD to where it starts the command: the workspace.
    expect(Object.keys(seen.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PROBE_TOKEN', 'PWD']);
    expect(seen.env).toMatchObject({ HOME: workspace, PWD: workspace, PROBE_TOKEN: TOKEN });
    expect(JSON.stringify(seen)).not.toContain(OTHER_SECRET);
    expect(seen.pids.length).toBeLessThan(10);
    expect(seen.pids).not.toContain(process.pid);
    expect(seen.home).toBe('unreadable: ENOENT');
  });

  it('leaves nothing running once stopped: its setsid grandchild dies with its pid namespace', async () => {
    const marker = uniqueSleep();
    const { host } = await hostWith(true, marker);
    await expect.poll(() => livingWith(marker).length).toBeGreaterThan(0);
    await host.stop();
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('(the control) unsandboxed, the same server’s setsid grandchild outlives it: what the sandbox takes away', async () => {
    const marker = uniqueSleep();
    const { host } = await hostWith(false, marker);
    await expect.poll(() => livingWith(marker).length).toBeGreaterThan(0);
    await host.stop();
    const escaped = livingWith(marker);
    cleanups.push(() => escaped.forEach((pid) => process.kill(pid, 'SIGKILL')));
    expect(escaped.length).toBeGreaterThan(0);
  });
});
