// The start's order, now that main.ts starts looking for the sandbox before the rest of the
// runtime has loaded: however long the probe takes, the runtime takes no message, offers no
// tool and announces nothing until the sandbox is known, so exec is never offered (or used)
// on a guess. Composed as main.ts composes it, over in-memory queues.
import { queueLocalMessage } from '../support/memory-turn.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import { parseOutbound } from '../../shared/protocol/envelopes.ts';
import { startAgentRuntime, type AgentRuntime } from '../../runtime-image/src/kinds/native.ts';
import type { SandboxChoice } from '../../shared/adapters/sandbox/choose-sandbox.ts';
import { Unsandboxed } from '../../shared/adapters/sandbox/no-sandbox.ts';
import { chooseSandboxAtStart } from '../../runtime-image/src/sandbox/sandbox-at-start.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franRuntimeEnv, inMemoryRuntimeParts } from '../support/in-process-runtime.ts';

const started: AgentRuntime[] = [];
afterAll(() => Promise.all(started.map((r) => r.stop())));

async function envFor(edit: (fran: Record<string, any>) => void = () => {}) {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  edit(raw.agents.list.find((a: { id: string }) => a.id === 'fran'));
  return franRuntimeEnv(raw, {
    CLAWFLEET_OFFLINE_MODEL: 'test',
    CLAWFLEET_WORKSPACE: join(tempDir('cf-start-order-'), 'workspace'),
    CLAWFLEET_SANDBOX: 'bwrap',
    CLAWFLEET_BWRAP: '/nonexistent/clawfleet-test/bwrap',
  });
}

describe('a start whose sandbox is still being looked for', () => {
  it('takes no message, offers no tool and announces nothing until the sandbox is known', async () => {
    const env = await envFor();
    let settle!: (choice: SandboxChoice) => void;
    const sandbox = new Promise<SandboxChoice>((r) => (settle = r));
    const inbox = new InMemoryFifoQueue();
    let receives = 0;
    const receive = inbox.receive.bind(inbox);
    inbox.receive = (...args) => (receives++, receive(...args));
    queueLocalMessage(inbox, 'fran', 'm.1', 'hi');
    const outbox = new InMemoryOutbox();
    const log = memoryLogger();
    let done = false;
    const starting = startAgentRuntime(inMemoryRuntimeParts(env, { inbox, outbox, log, sandbox })).then((r) => {
      done = true;
      started.push(r);
      return r;
    });
    // The start gets as far as it can: the workspace seeded, then every pending callback run.
    while (!log.lines.some((l) => l.msg === 'workspace seeded from the template')) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    expect(receives).toBe(0);
    expect(outbox.queue.bodies()).toEqual([]);
    expect(log.lines.map((l) => l.msg)).not.toContain('ready');

    // The probe answers: a sandbox. Only now the tools (exec among them), the announcement, and polling.
    settle({ sandbox: new Unsandboxed(env.workspace) });
    const runtime = await starting;
    expect(runtime.tools().map((t) => t.name)).toContain('exec');
    const [hello] = outbox.queue.bodies().map((b) => parseOutbound(b));
    expect(hello).toMatchObject({ kind: 'heartbeat', capabilities: expect.arrayContaining(['tool:exec']) });
    expect(receives).toBeGreaterThan(0);
    expect(log.lines.find((l) => l.msg === 'ready')).toMatchObject({ sandbox: 'none' });
  });

  it('looks for no sandbox when nothing needs one, and for one when exec or a sandboxed MCP server does', async () => {
    expect(await chooseSandboxAtStart(await envFor((fran) => (fran.tools = { exec: { security: 'deny' } })))).toBeUndefined();
    expect(await chooseSandboxAtStart(await envFor((fran) => (fran.tools = { deny: ['exec'] })))).toBeUndefined();
    expect(await chooseSandboxAtStart(await envFor((fran) => (fran.tools = { exec: { sandbox: 'off' } })))).toBeUndefined();
    // Exec wanted: the probe runs (and finds no bubblewrap at the path given).
    expect(await chooseSandboxAtStart(await envFor())).toEqual({ unavailable: 'bubblewrap not found at /nonexistent/clawfleet-test/bwrap' });
    const mcpOnly = await envFor((fran) => {
      fran.tools = { deny: ['exec'] };
      fran.mcp = { servers: { files: { command: process.execPath, args: ['-e', '0'], sandbox: true } } };
    });
    expect(await chooseSandboxAtStart(mcpOnly)).toEqual({ unavailable: 'bubblewrap not found at /nonexistent/clawfleet-test/bwrap' });
  });
});
