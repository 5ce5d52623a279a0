// Real MCP servers from npm, started for one agent by the runtime's MCP host: their tools
// offered under a server prefix and called, only the configured environment passed, one
// killed mid-session and restarted, and no process left once the host stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { McpHost } from '../../runtime-image/src/mcp/mcp-host.ts';
import type { AgentTool, ToolResult } from '../../runtime-image/src/tools/tool.ts';
import { tempDir } from '../support/temp-dirs.ts';

const pkg = (name: string) => fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));
const EVERYTHING = pkg('server-everything');
const FILESYSTEM = pkg('server-filesystem');
const MCP_TOKEN = 'mcp-token-for-fran-0123456789';
const OTHER = 'not-for-any-mcp-server-0123456789';

const workspace = realpathSync(tempDir('cf-mcp-'));
const log = memoryLogger();
let host: McpHost;

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const tool: AgentTool | undefined = host.tools().find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name}; have ${host
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  const parsed = tool.parse(args);
  if (!parsed.ok) return { text: parsed.error, isError: true };
  return tool.run(parsed.value, { signal: new AbortController().signal, sessionKey: 's', inboundId: 'i', request: async () => 'x' });
}

/**
 * Pids of live processes whose command line mentions `marker` and that run in this file's
 * workspace (other test files may run the same servers at the same time).
 */
function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        const state = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.[0];
        const here = readlinkSync(`/proc/${d}/cwd`) === workspace;
        return cmd.includes(marker) && here && state !== 'Z' && Number(d) !== process.pid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

/** Live (not zombie) processes in a process group. */
function liveInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const fields = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return fields[0] !== 'Z' && Number(fields[2]) === pgid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

beforeAll(async () => {
  host = new McpHost(
    {
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { EVERYTHING_TOKEN: 'MCP_TOKEN' } },
      // Through a shell, so the server is a grandchild: stopping must reach it too.
      filesystem: { command: '/bin/sh', args: ['-c', `"${process.execPath}" "${FILESYSTEM}" "$0"; echo exited`, workspace] },
    },
    { workspace, runtimeState: join(workspace, '.clawfleet'), secrets: { MCP_TOKEN, OTHER }, log, backoffMs: 200 },
  );
  await host.start();
}, 60_000);

afterAll(() => host?.stop());

describe('MCP servers of one agent', () => {
  it('start, and offer their tools to the model under a server prefix', () => {
    expect(host.status()).toMatchObject({ everything: { state: 'ready' }, filesystem: { state: 'ready' } });
    const names = host.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'filesystem__read_file', 'filesystem__write_file']));
    expect(host.tools().find((t) => t.name === 'everything__echo')?.parameters).toMatchObject({ type: 'object', properties: { message: expect.anything() } });
  });

  it('answer tool calls, and arguments are checked against the tool’s schema first', async () => {
    // What a server returns is marked as untrusted content from that server's tool (the agent loop wraps it).
    expect(await call('everything__echo', { message: 'hi there' })).toEqual({
      text: 'Echo: hi there',
      isError: false,
      untrusted: { source: 'mcp', meta: { tool: 'everything/echo' } },
    });
    expect(await call('everything__get-sum', { a: 2, b: 40 })).toMatchObject({ text: expect.stringContaining('42'), isError: false });
    expect(await call('everything__get-sum', { a: 'two' })).toMatchObject({ isError: true, text: expect.stringMatching(/^a:/) });
    expect(await call('filesystem__write_file', { path: join(workspace, 'hello.txt'), content: 'from MCP' })).toMatchObject({ isError: false });
    expect(await call('filesystem__read_text_file', { path: join(workspace, 'hello.txt') })).toMatchObject({ text: 'from MCP', isError: false });
    // The filesystem server refuses what is outside the directory it was given, as an error result.
    expect(await call('filesystem__read_text_file', { path: '/etc/hostname' })).toMatchObject({ isError: true });
  });

  it('get only the environment their config names, with values from this agent’s secrets', async () => {
    const { text } = await call('everything__get-env', {});
    const env = JSON.parse(text) as Record<string, string>;
    expect(env.EVERYTHING_TOKEN).toBe(MCP_TOKEN);
    expect(Object.keys(env).sort()).toEqual(['EVERYTHING_TOKEN', 'HOME', 'LANG', 'PATH']);
    expect(text).not.toContain(OTHER);
  });

  it('restarts a server killed mid-session; meanwhile its tools answer with an error', async () => {
    const before = host.status().filesystem!.pgid!;
    process.kill(-before, 'SIGKILL');
    await expect.poll(() => host.status().filesystem!.state).toBe('down');
    expect(await call('filesystem__list_directory', { path: workspace })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/filesystem" is unavailable .*being restarted/),
    });
    // The other server is untouched.
    expect(await call('everything__echo', { message: 'still here' })).toMatchObject({ text: 'Echo: still here', isError: false });
    await expect.poll(() => host.status().filesystem!.state).toBe('ready');
    expect(host.status().filesystem!.pgid).not.toBe(before);
    expect(await call('filesystem__list_directory', { path: workspace })).toMatchObject({ isError: false, text: expect.stringContaining('hello.txt') });
  });

  it('leaves no process behind once stopped', async () => {
    const groups = Object.values(host.status()).map((s) => s.pgid!);
    expect(processesMentioning(FILESYSTEM).length).toBeGreaterThan(0);
    await host.stop();
    expect(host.status()).toMatchObject({ everything: { state: 'stopped' }, filesystem: { state: 'stopped' } });
    // SIGKILL is delivered asynchronously: the processes go soon after, however busy the machine (the default 20 s poll).
    await expect.poll(() => groups.flatMap(liveInGroup)).toEqual([]);
    expect(processesMentioning(EVERYTHING)).toEqual([]);
    expect(processesMentioning(FILESYSTEM)).toEqual([]);
  });
});

describe('after a runtime was killed with its MCP servers running', () => {
  it('the next runtime of the agent kills the process groups it left', async () => {
    const ws = realpathSync(tempDir('cf-mcp-orphan-'));
    const runtimeState = join(ws, 'runtime-state');
    const config = { orphaned: { command: process.execPath, args: [EVERYTHING, 'stdio'] } };
    // The first host is never stopped, as if its runtime had died with SIGKILL.
    const crashed = new McpHost(config, { workspace: ws, runtimeState, secrets: {}, log });
    await crashed.start();
    const orphanGroup = crashed.status().orphaned!.pgid!;
    expect(liveInGroup(orphanGroup).length).toBeGreaterThan(0);

    const next = new McpHost(config, { workspace: ws, runtimeState, secrets: {}, log });
    await next.start();
    try {
      await expect.poll(() => liveInGroup(orphanGroup)).toEqual([]);
      expect(next.status().orphaned).toMatchObject({ state: 'ready' });
      expect(log.lines.some((l) => l.msg === 'killed MCP process groups left by a previous runtime' && l.groups === 1)).toBe(true);
    } finally {
      await next.stop();
      await crashed.stop();
    }
  });

  it('never acts on a record planted in the workspace: a forged process group there is left alone', async () => {
    const ws = realpathSync(tempDir('cf-mcp-forged-'));
    // A process that is not the agent's, in a group of its own, and the record an agent's
    // code could write into its workspace naming it, with its real start time.
    const victim = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      const stat = readFileSync(`/proc/${victim.pid}/stat`, 'utf8');
      const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      mkdirSync(join(ws, '.clawfleet'));
      writeFileSync(join(ws, '.clawfleet', 'mcp-process-groups.json'), JSON.stringify([{ pgid: victim.pid, startTime }]));
      const host = new McpHost(
        { orphaned: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        { workspace: ws, runtimeState: join(ws, 'runtime-state'), secrets: {}, log },
      );
      await host.start();
      await host.stop();
      expect(liveInGroup(victim.pid!)).toEqual([victim.pid]);
    } finally {
      victim.kill('SIGKILL');
    }
  });
});

describe('an MCP server over streamable HTTP', () => {
  let server: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve) => server.stderr!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve()));
    url = `http://127.0.0.1:${port}/mcp`;
  }, 30_000);
  afterAll(() => void server?.kill('SIGKILL'));

  it('is connected by URL with headers from this agent’s secrets, and its tools are called', async () => {
    const http = new McpHost(
      { remote: { url, headers: { authorization: 'MCP_TOKEN' } } },
      { workspace, runtimeState: join(workspace, '.clawfleet'), secrets: { MCP_TOKEN }, log },
    );
    await http.start();
    try {
      expect(http.status().remote).toMatchObject({ state: 'ready' });
      const echo = http.tools().find((t) => t.name === 'remote__echo')!;
      expect(
        await echo.run({ message: 'over http' }, { signal: new AbortController().signal, sessionKey: 's', inboundId: 'i', request: async () => 'x' }),
      ).toMatchObject({ text: 'Echo: over http', isError: false, untrusted: { source: 'mcp', meta: { tool: 'remote/echo' } } });
    } finally {
      await http.stop();
    }
  });
});
