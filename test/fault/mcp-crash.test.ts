// An MCP server that crashes on every tool call: the turn goes on (the model sees an
// error result and answers anyway), the server is restarted with growing backoff, and
// other turns are unaffected. A token the server prints to stderr is masked in the logs.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeProcess } from '../support/runtime-process.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const CRASHY = fileURLToPath(new URL('./fixtures/crash-on-call-mcp.mjs', import.meta.url));
const CRASHY_TOKEN = 'mcp-crashy-token-0123456789abcdef';
let f: FaultFleet;
let r: RuntimeProcess;
let updateId = 4_000;

const readyCount = () => r.lines.filter((l) => l.msg === 'MCP server ready' && l.mcpServer === 'crashy').length;
const backoffs = () => r.lines.filter((l) => l.msg === 'MCP server down; restarting' && l.mcpServer === 'crashy').map((l) => l.inMs as number);

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: 'mcp',
    senders: [7301],
    franSecrets: { CRASHY_TOKEN },
    edit: (raw) => {
      const fran = raw.agents.list.find((a: { id: string }) => a.id === 'fran');
      fran.mcp = { servers: { crashy: { command: process.execPath, args: [CRASHY], env: { CRASHY_TOKEN: 'CRASHY_TOKEN' } } } };
    },
  });
  f.scan.addSecrets(CRASHY_TOKEN);
  r = f.launch();
  await r.waitFor((l) => l.msg === 'ready', 30_000);
});

afterAll(() => f?.close());

describe('an MCP server that crashes on every call', () => {
  it('leaves the agent answering every message, and is restarted with growing backoff', async () => {
    expect(readyCount()).toBe(1);
    for (let turn = 1; turn <= 3; turn++) {
      f.model.script({ toolCalls: [{ name: 'crashy__lookup', arguments: { query: `q${turn}` } }] }, { text: `answered without the tool (${turn})` });
      const before = f.model.requests().length;
      expect((await f.post(f.update(updateId++, 7301, `look up q${turn}`))).statusCode).toBe(200);
      await expect.poll(() => f.sent(`answered without the tool (${turn})`, 7301), { timeout: 30_000 }).toBe(1);
      // The model was shown the failed call as an error result, not left hanging.
      const toolRound = JSON.stringify(f.model.requests()[before + 1]!.body);
      expect(toolRound).toMatch(/MCP server \\"crashy\\" (failed the call|is unavailable)/);
      // Back up before the next turn, so each call meets a fresh server that crashes again.
      await expect.poll(readyCount, { timeout: 30_000, interval: 100 }).toBe(turn + 1);
    }
    expect(backoffs()).toEqual([1_000, 2_000, 4_000]);
  }, 90_000);

  it('answers a message whose tool call meets the server while it is down', async () => {
    f.model.script(
      { toolCalls: [{ name: 'crashy__lookup', arguments: { query: 'a' } }] },
      { toolCalls: [{ name: 'crashy__lookup', arguments: { query: 'b' } }] },
      { text: 'answered while it was down' },
    );
    const before = f.model.requests().length;
    await f.post(f.update(updateId++, 7301, 'two lookups in a row'));
    await expect.poll(() => f.sent('answered while it was down', 7301), { timeout: 30_000 }).toBe(1);
    expect(JSON.stringify(f.model.requests()[before + 2]!.body)).toMatch(/MCP server \\"crashy\\" is unavailable/);
  });

  it('masks the token the server printed to stderr', () => {
    expect(r.lines.some((l) => l.msg === 'MCP server stderr' && String(l.line).includes('token=[redacted]'))).toBe(true);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'mcp-crash'));
});
