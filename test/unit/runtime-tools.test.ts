// Each built-in tool on its own: workspace files, exec, memory, the outbox requests,
// web_fetch, and the allow/deny policy that decides which of them the model sees.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { parseOutbound } from '../../shared/protocol/envelopes.ts';
import { execTool, type ExecLimits } from '../../runtime-image/src/tools/exec-tool.ts';
import { fileTools } from '../../runtime-image/src/tools/file-tools.ts';
import { memoryTools } from '../../runtime-image/src/tools/memory-tools.ts';
import { requestTools } from '../../runtime-image/src/tools/request-tools.ts';
import type { AgentTool, ToolCallContext, ToolResult } from '../../runtime-image/src/tools/tool.ts';
import { toolAllowed } from '../../shared/tools/tool-policy.ts';
import { webFetchTool } from '../../runtime-image/src/tools/web-fetch.ts';
import { livingWith, uniqueSleep } from '../support/processes.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ws = () => tempDir('cf-tools-');

function ctx(sent: OutboundEnvelope[] = [], signal = new AbortController().signal): ToolCallContext {
  let n = 0;
  return {
    signal,
    sessionKey: 'agent:fran:main',
    inboundId: 'tg.fran.7',
    request: async (make) => {
      const e = make(`tg.fran.7.req.${++n}`);
      sent.push(parseOutbound(JSON.stringify(e)));
      return e.id;
    },
  };
}

/** Parses and runs a tool as the loop does; a parse failure comes back as an error result. */
async function call(tools: AgentTool[], name: string, args: unknown, c = ctx()): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === name)!;
  const parsed = tool.parse(args);
  if (!parsed.ok) return { text: parsed.error, isError: true };
  try {
    return await tool.run(parsed.value, c);
  } catch (err) {
    return { text: (err as Error).message, isError: true };
  }
}

describe('workspace file tools', () => {
  it('write, read with line windows, edit a unique match, and list', async () => {
    const dir = ws();
    const tools = fileTools(dir);
    expect((await call(tools, 'write', { path: 'notes/todo.md', content: 'one\ntwo\nthree' })).text).toBe('wrote 13 bytes to notes/todo.md');
    expect((await call(tools, 'read', { path: 'notes/todo.md', offset: 2, limit: 1 })).text).toBe('two\n[1 more lines; use offset=3]');
    expect(await call(tools, 'edit', { path: 'notes/todo.md', oldText: 'two', newText: 'TWO' })).toEqual({ text: 'edited notes/todo.md' });
    expect(readFileSync(join(dir, 'notes/todo.md'), 'utf8')).toBe('one\nTWO\nthree');
    expect(await call(tools, 'edit', { path: 'notes/todo.md', oldText: 'e', newText: 'E' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/occurs 3 times/),
    });
    expect(await call(tools, 'edit', { path: 'notes/todo.md', oldText: 'four', newText: '4' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/not found/),
    });
    expect((await call(tools, 'list', { recursive: true })).text).toBe('notes/\nnotes/todo.md');
  });

  it('refuses paths outside the workspace, including through a symlink', async () => {
    const dir = ws();
    const outside = ws();
    writeFileSync(join(outside, 'secret.txt'), 'other agent');
    symlinkSync(outside, join(dir, 'link'));
    const tools = fileTools(dir);
    for (const path of ['../x.txt', '/etc/passwd', 'notes/../../x.txt']) {
      expect(await call(tools, 'read', { path })).toMatchObject({
        isError: true,
        text: expect.stringMatching(/outside the workspace|climbs out of the workspace/),
      });
    }
    // A link is never followed, wherever it points: the model is told it is a link.
    expect(await call(tools, 'read', { path: 'link/secret.txt' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^link is a symbolic link, which file tools do not follow/),
    });
    expect(await call(tools, 'write', { path: 'link/new.txt', content: 'x' })).toMatchObject({ isError: true, text: expect.stringMatching(/symbolic link/) });
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    // An absolute path inside the workspace is taken, as a relative one.
    writeFileSync(join(dir, 'in.txt'), 'inside');
    expect(await call(tools, 'read', { path: join(dir, 'in.txt') })).toEqual({ text: 'inside' });
  });

  it('says how much of a file too large for it it reads or edits, in the byte units the rest of the house uses', async () => {
    const dir = ws();
    writeFileSync(join(dir, 'big.log'), '');
    truncateSync(join(dir, 'big.log'), 9 * 2 ** 20); // sparse: nothing written
    const tools = fileTools(dir);
    expect((await call(tools, 'read', { path: 'big.log', limit: 1 })).text).toMatch(
      /\[big\.log is 9437184 bytes; only its first 8\.0 MiB can be read with this tool\]$/,
    );
    expect(await call(tools, 'edit', { path: 'big.log', oldText: 'a', newText: 'b' })).toEqual({
      isError: true,
      text: 'big.log is 9437184 bytes, over the 8.0 MiB this tool edits',
    });
  });

  it('rejects arguments that do not fit the schema', async () => {
    expect(await call(fileTools(ws()), 'read', { path: 'a', limit: -1 })).toMatchObject({ isError: true, text: expect.stringMatching(/^limit:/) });
    expect(await call(fileTools(ws()), 'write', { path: 'a', content: 'x', extra: 1 })).toMatchObject({ isError: true });
  });
});

describe('exec (in bubblewrap, as the runtime runs it where bwrap works)', () => {
  /** exec in `dir`, sandboxed as the runtime would sandbox it there. */
  const sandboxedExec = async (dir: string, limits?: ExecLimits) => execTool({ workspace: dir, sandbox: await bwrapSandbox(dir), limits });

  it('runs a command in the workspace and reports its output and exit code', async () => {
    const dir = ws();
    writeFileSync(join(dir, 'hello.txt'), 'hi\n');
    expect(await call([await sandboxedExec(dir)], 'exec', { command: 'cat hello.txt; echo err >&2' })).toEqual({
      text: 'exit code 0\nhi\nerr\n',
      isError: false,
    });
    expect(await call([await sandboxedExec(dir)], 'exec', { command: 'exit 3' })).toMatchObject({ text: expect.stringMatching(/^exit code 3/), isError: true });
  });

  it('kills the command and everything it started after the timeout', async () => {
    const dir = ws();
    const started = Date.now();
    const marker = uniqueSleep(30);
    const r = await call([await sandboxedExec(dir, { defaultTimeoutSeconds: 1, maxTimeoutSeconds: 5, maxOutputBytes: 1000 })], 'exec', {
      command: `(sleep ${marker}; touch late.txt) & sleep ${marker}`,
    });
    expect(r).toMatchObject({ isError: true, text: expect.stringMatching(/^killed after 1 s/) });
    // Not the 30 s the command would take (a generous bound: a busy machine is slow, not that slow).
    expect(Date.now() - started).toBeLessThan(20_000);
    // Seen from the host (the sandbox has a pid namespace of its own): nothing of the call
    // is left running (a zombie waiting to be reaped is dead already).
    await expect.poll(() => livingWith(marker)).toEqual([]);
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
  });

  it('caps the output it returns', async () => {
    const r = await call([await sandboxedExec(ws(), { defaultTimeoutSeconds: 5, maxTimeoutSeconds: 5, maxOutputBytes: 100 })], 'exec', {
      command: 'head -c 5000 /dev/zero | tr "\\0" a',
    });
    expect(r.text).toMatch(/^exit code 0\na{100}\n\[4900 more bytes of output cut\]$/);
  });

  it('does not pass the runtime’s environment (and its secrets) to the command', async () => {
    process.env.CLAWFLEET_SECRETS = '{"OPENAI_API_KEY":"sk-must-not-leak-0000"}';
    try {
      const r = await call([await sandboxedExec(ws())], 'exec', { command: 'env' });
      expect(r.text).not.toContain('sk-must-not-leak');
      expect(r.text).not.toContain('CLAWFLEET');
    } finally {
      delete process.env.CLAWFLEET_SECRETS;
    }
  });
});

describe('memory tools', () => {
  it('finds paragraphs in MEMORY.md and memory/*.md by their words, and reads lines of a memory file', async () => {
    const dir = ws();
    writeFileSync(join(dir, 'MEMORY.md'), '# Memory\n\nAnn prefers tea over coffee.\n\nAnn lives in Lisbon.\n');
    mkdirSync(join(dir, 'memory'));
    writeFileSync(join(dir, 'memory/2026-03-01.md'), '## 10:00\n\n- Dentist appointment on Friday at 9.\n');
    const tools = memoryTools(dir);
    const hit = await call(tools, 'memory_search', { query: 'when is the dentist appointment' });
    expect(hit.text).toMatch(/^memory\/2026-03-01\.md:3 .*\n- Dentist appointment on Friday at 9\./);
    expect((await call(tools, 'memory_search', { query: 'tea', maxResults: 1 })).text).toMatch(/^MEMORY\.md:3 .*\nAnn prefers tea/);
    expect((await call(tools, 'memory_search', { query: 'giraffes' })).text).toBe('no matching memory');
    expect((await call(tools, 'memory_get', { path: 'MEMORY.md', from: 5, lines: 1 })).text).toBe('Ann lives in Lisbon.');
    expect(await call(tools, 'memory_get', { path: '../etc/passwd' })).toMatchObject({ isError: true, text: expect.stringMatching(/MEMORY\.md or memory/) });
  });
});

describe('sessions_send and cron', () => {
  it('send their requests to the control plane on the outbox, with ids derived from the turn', async () => {
    const sent: OutboundEnvelope[] = [];
    const tools = requestTools('fran', { now: () => 5 });
    const c = ctx(sent);
    expect((await call(tools, 'sessions_send', { agentId: 'grif', message: 'Is Tuesday OK?' }, c)).text).toMatch(
      /message to grif requested \(tg\.fran\.7\.req\.1\)/,
    );
    await call(
      tools,
      'cron',
      { action: 'add', jobId: 'standup', schedule: { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Lisbon' }, message: 'Post the standup' },
      c,
    );
    await call(tools, 'cron', { action: 'remove', jobId: 'old-job' }, c);
    expect(sent).toEqual([
      {
        v: PROTOCOL_VERSION,
        kind: 'agent_send',
        id: 'tg.fran.7.req.1',
        agentId: 'fran',
        sessionKey: 'agent:fran:main',
        inboundId: 'tg.fran.7',
        toAgentId: 'grif',
        text: 'Is Tuesday OK?',
        ts: 5,
      },
      {
        v: PROTOCOL_VERSION,
        kind: 'cron_upsert',
        id: 'tg.fran.7.req.2',
        agentId: 'fran',
        jobId: 'standup',
        schedule: { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Lisbon' },
        sessionTarget: 'main',
        message: 'Post the standup',
        ts: 5,
      },
      { v: PROTOCOL_VERSION, kind: 'cron_delete', id: 'tg.fran.7.req.3', agentId: 'fran', jobId: 'old-job', ts: 5 },
    ]);
  });

  it('refuse a bad schedule or messaging oneself without sending anything', async () => {
    const sent: OutboundEnvelope[] = [];
    const tools = requestTools('fran', { now: () => 5 });
    expect(await call(tools, 'cron', { action: 'add', jobId: 'x', schedule: { kind: 'at', at: 'tomorrow' }, message: 'hi' }, ctx(sent))).toMatchObject({
      isError: true,
    });
    expect(await call(tools, 'sessions_send', { agentId: 'fran', message: 'me?' }, ctx(sent))).toMatchObject({ isError: true });
    expect(sent).toEqual([]);
  });
});

describe('web_fetch', () => {
  let url: string;
  const server = createServer((req, res) => {
    if (req.url === '/page')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><script>x()</script></head><body><h1>Title</h1><p>Hello &amp; welcome</p></body></html>');
    if (req.url === '/big') return res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' }).end('b'.repeat(5_000));
    if (req.url === '/stream') return res.writeHead(200, { 'content-type': 'text/plain' }).end('s'.repeat(5_000));
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
    res.writeHead(404).end('nope');
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  // The test server is on loopback: allowed by its address, as a user would allow an intranet host.
  const tool = webFetchTool({ limits: { timeoutMs: 10_000, maxBytes: 1_000, maxChars: 50_000 }, allowPrivateHosts: ['127.0.0.1'] });
  // Its own short time limit, so the fetches that must succeed do not race it on a busy machine.
  const impatient = webFetchTool({ limits: { timeoutMs: 300, maxBytes: 1_000, maxChars: 50_000 }, allowPrivateHosts: ['127.0.0.1'] });

  it('returns a page’s readable text, marked as untrusted content from that URL', async () => {
    expect(await call([tool], 'web_fetch', { url: `${url}/page` })).toEqual({
      text: '## Title\n\nHello & welcome',
      isError: false,
      untrusted: { source: 'web_fetch', meta: { url: `${url}/page`, status: '200 OK text/html' } },
    });
  });

  it('stops at the size limit and the time limit, and reports HTTP errors', async () => {
    expect(await call([tool], 'web_fetch', { url: `${url}/big` })).toMatchObject({
      text: expect.stringMatching(/is 5000 bytes, over the 1000-byte limit/),
      isError: true,
    });
    // Without a declared length, reading stops at the limit.
    expect(await call([tool], 'web_fetch', { url: `${url}/stream` })).toMatchObject({
      text: 's'.repeat(1_000),
      isError: false,
      untrusted: { meta: { status: '200 OK text/plain (first 1000 bytes)' } },
    });
    expect(await call([impatient], 'web_fetch', { url: `${url}/slow` })).toEqual({ text: 'no answer within 0.3 s', isError: true });
    expect(await call([tool], 'web_fetch', { url: `${url}/missing` })).toMatchObject({
      text: 'nope',
      isError: true,
      untrusted: { meta: { status: '404 Not Found' } },
    });
    expect(await call([tool], 'web_fetch', { url: 'file:///etc/passwd' })).toMatchObject({ isError: true });
  });
});

describe('the tools policy', () => {
  it('allows everything without a policy, and lets deny win over allow', () => {
    expect(toolAllowed(undefined)('exec')).toBe(true);
    const allowed = toolAllowed({ allow: ['group:fs', 'memory_*', 'github__*'], deny: ['write', 'github__delete_repo'] });
    expect(['read', 'edit', 'memory_search', 'github__list_issues'].every(allowed)).toBe(true);
    expect(['write', 'exec', 'github__delete_repo', 'web_fetch'].some(allowed)).toBe(false);
  });
});
