// Whether a runtime offers `exec`, and what it tells the operator, from tools.exec and the
// sandbox it finds — the runtime composed as main.ts composes it, over in-memory queues:
// no sandbox → exec off, with the reason in every heartbeat; sandbox "off" → exec on,
// unsandboxed, with a loud warning; security "deny" → no exec and nothing to warn about.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import { parseOutbound } from '../../shared/protocol/envelopes.ts';
import { startAgentRuntime, type AgentRuntime } from '../../runtime-image/src/kinds/native.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franRuntimeEnv, inMemoryRuntimeParts } from '../support/in-process-runtime.ts';

const NO_BWRAP = '/nonexistent/clawfleet-test/bwrap';
const started: AgentRuntime[] = [];
// Stopped together: each stop lets its waiting poll finish (a second here).
afterAll(() => Promise.all(started.map((r) => r.stop())));

/** fran's runtime with `edit` applied to its config and the given sandbox environment; its first heartbeat. */
async function start(edit: (fran: Record<string, any>) => void, sandboxEnv: Record<string, string>) {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  edit(raw.agents.list.find((a: { id: string }) => a.id === 'fran'));
  const env = await franRuntimeEnv(raw, { CLAWFLEET_OFFLINE_MODEL: 'test', CLAWFLEET_WORKSPACE: tempDir('cf-exec-avail-'), ...sandboxEnv });
  const outbox = new InMemoryOutbox();
  const log = memoryLogger();
  const running = await startAgentRuntime(inMemoryRuntimeParts(env, { outbox, log }));
  started.push(running);
  const heartbeat = outbox.queue
    .bodies()
    .map((b) => parseOutbound(b))
    .find((e) => e.kind === 'heartbeat');
  if (heartbeat?.kind !== 'heartbeat') throw new Error('no heartbeat');
  const tools = running.tools().map((t) => t.name);
  return { heartbeat, tools, exec: running.tools().find((t) => t.name === 'exec'), log };
}

describe('exec and the sandbox at start', () => {
  it('is off where no sandbox is available, and every heartbeat says why', async () => {
    const r = await start(() => {}, { CLAWFLEET_SANDBOX: 'bwrap', CLAWFLEET_BWRAP: NO_BWRAP });
    expect(r.tools).not.toContain('exec');
    expect(r.heartbeat.capabilities).not.toContain('tool:exec');
    expect(r.heartbeat.warnings).toEqual([
      `exec is off: no sandbox is available (bubblewrap not found at ${NO_BWRAP}). Install bubblewrap (\`apt-get install bubblewrap\`, or \`npx clawfleet sandbox install\` for a copy of its own in .cache/), or set tools.exec.sandbox to "off" to run commands unsandboxed`,
    ]);
    expect(r.log.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^exec is off: no sandbox is available/) }));
  });

  it('runs unsandboxed under tools.exec.sandbox "off", warning loudly at start and in the heartbeat', async () => {
    const r = await start((fran) => (fran.tools = { exec: { sandbox: 'off' } }), { CLAWFLEET_SANDBOX: 'bwrap', CLAWFLEET_BWRAP: NO_BWRAP });
    expect(r.tools).toContain('exec');
    expect(r.heartbeat.warnings).toEqual([expect.stringMatching(/^exec runs UNSANDBOXED \(tools\.exec\.sandbox is "off"\)/)]);
    expect(r.log.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^exec runs UNSANDBOXED/) }));
    expect(r.exec?.description).not.toContain('sandbox');
  });

  it('offers no exec under security "deny", and has nothing to warn about', async () => {
    const r = await start((fran) => (fran.tools = { exec: { security: 'deny' } }), { CLAWFLEET_SANDBOX: 'bwrap', CLAWFLEET_BWRAP: NO_BWRAP });
    expect(r.tools).not.toContain('exec');
    expect(r.heartbeat.warnings).toEqual([]);
  });

  it('runs exec in bubblewrap where it works, with nothing to warn about', async () => {
    const r = await start(() => {}, {});
    expect(r.tools).toContain('exec');
    expect(r.heartbeat.warnings).toEqual([]);
    expect(r.exec?.description).toContain('It runs in a sandbox');
    expect(r.log.lines).toContainEqual(expect.objectContaining({ msg: 'sandbox for code the agent chooses', sandbox: expect.stringMatching(/^bubblewrap/) }));
  });

  it('keeps exec off when the network must be cut and only the uid pool (which cannot cut it) is there', async () => {
    // Not root, or root without a working pool: either way no sandbox that can do it.
    const r = await start((fran) => (fran.tools = { exec: { network: false } }), { CLAWFLEET_SANDBOX: 'uid-pool' });
    expect(r.tools).not.toContain('exec');
    expect(r.heartbeat.warnings).toEqual([expect.stringMatching(/^exec is off: /)]);
  });

  it('does not start an MCP server that asks for a sandbox when there is none, and says so', async () => {
    const r = await start(
      (fran) => (fran.mcp = { servers: { files: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], sandbox: true } } }),
      { CLAWFLEET_SANDBOX: 'bwrap', CLAWFLEET_BWRAP: NO_BWRAP },
    );
    expect(r.heartbeat.mcp?.files).toMatchObject({
      state: 'down',
      error: expect.stringContaining('not started: its config asks for a sandbox and none is available'),
    });
    expect(r.heartbeat.warnings).toContainEqual(expect.stringMatching(/^MCP server "files" is not started: its config asks for a sandbox/));
  });
});
