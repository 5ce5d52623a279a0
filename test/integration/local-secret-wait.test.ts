// Local mode, same rule as on AWS: an agent whose secrets file lacks a value with no fallback
// (an MCP server's token) waits instead of crash-looping — `clawfleet status` shows why, its
// message waits in the queue — and `clawfleet secrets set` restarts it in the running fleet,
// after which it answers. An agent without its model key still runs the labelled offline model.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franWaitingForMcpToken } from '../support/secret-waiting-fleet.ts';

const MCP_TOKEN = 'mcp-local-token-0123456789abcdef';
let fleet: LocalFleet;
let dir: string;
const lines: { agentId: string; line: Record<string, unknown> }[] = [];

async function clawfleet(argv: string[], stdin?: string) {
  const io = captureIO({ cwd: dir, ...(stdin === undefined ? {} : { stdin }) });
  const code = await runCli([...argv, '--state', 'state'], io);
  return { code, out: io.outText(), err: io.errText() };
}

beforeAll(async () => {
  dir = tempDir('cf-local-wait-');
  const config = franWaitingForMcpToken();
  config.channels = {};
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), '{}');
  fleet = await startFleet({ dir, onRuntimeLine: (agentId, line) => lines.push({ agentId, line }) });
});

afterAll(async () => {
  await fleet?.stop();
});

describe('a local agent whose secret lacks a value', () => {
  it('waits, saying why in `clawfleet status`, and answers once `clawfleet secrets set` has restarted it', async () => {
    await expect.poll(() => lines.some((l) => l.line.msg === 'waiting for secret values; taking no work until they are set'), { timeout: 20_000 }).toBe(true);
    const pid = fleet.supervisor.pid('fran');
    const status = await clawfleet(['status']);
    expect(status.out).toMatch(
      /⚠ fran: waiting for secret "clawfleet\/demo\/agents\/fran": it lacks MCP_TOKEN \(MCP server "everything"\)\. Set with: clawfleet secrets set <NAME> --agent fran \(< value\), which restarts the agent/,
    );
    // Waiting, not crashing: the same process, no restart by the supervisor.
    expect(fleet.supervisor.info('fran').restarts).toBe(0);
    expect(fleet.supervisor.pid('fran')).toBe(pid);
    expect((await postChat(fleet, 'fran', 'are you there?')).status).toBe(202);

    const set = await clawfleet(['secrets', 'set', 'MCP_TOKEN', '--agent', 'fran', '--secrets', 'secrets.json'], `${MCP_TOKEN}\n`);
    expect(set.code, set.err).toBe(0);
    expect(set.out).toContain('restarted fran in the running fleet');
    // The new runtime has the token: its MCP server starts, and the message that waited is answered (offline model, labelled).
    await expect.poll(() => fleet.supervisor.state('fran'), { timeout: 20_000 }).toBe('running');
    expect(fleet.supervisor.pid('fran')).not.toBe(pid);
    await expect
      .poll(async () => (await chatLines(fleet, 'fran')).find((m) => m.role === 'agent')?.text, { timeout: 20_000 })
      .toMatch(/^\[offline model — not an AI\].*are you there\?/);
    await expect.poll(async () => (await clawfleet(['status'])).out).not.toContain('waiting for secret');
    expect(JSON.stringify(lines)).not.toContain(MCP_TOKEN);
  });
});
