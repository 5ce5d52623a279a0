// What an openclaw agent's config says about tools reaches the real gateway (OpenClaw, pinned,
// managed by `npm start`'s runtime; its own vitest project): its MCP server (the real
// server-everything over stdio, its env value from the agent's own secret) is offered to the
// model and called, and the agent's tools.deny — a built-in tool and one MCP tool — and the
// control plane's own deny list keep those tools out of what the gateway sends the model,
// while the tools beside them stay. The fake model server records every request's tool list.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalFleet, type LocalFleet } from '../../local/fleet.ts';
import { ensureOpenclaw, OPENCLAW_VERSION } from '../../local/openclaw-install.ts';
import { memoryLogger } from '../../shared/log.ts';
import { DENIED_TOOLS } from '../../runtime-image/src/openclaw/gateway-config.ts';
import { start as startModel, type FakeModel, type ModelReply, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { waiter } from '../support/openclaw-turns.ts';
import { tempDir } from '../support/temp-dirs.ts';

const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const FRAN_KEY = 'sk-test-openclaw-tools-fran-0123456789';
const FRAN_BOT = '7000000021:AAopenclaw-tools-fran-0123456789';
/** The MCP server's env value, from the agent's own secret: the server echoes its env back (get-env). */
const MCP_TOKEN = 'mcp-token-from-frans-secret-4242';
const PHRASE = 'use the mcp tool';
const OWNER = 42;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];

/** The names of the tools a request offers the model (OpenAI's chat completions wire). */
const toolNames = (r: ModelRequest): string[] =>
  ((r.body as { tools?: { function?: { name?: string } }[] }).tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean);
const toolResults = (r: ModelRequest): string[] =>
  ((r.body as { messages?: { role?: string; content?: unknown }[] }).messages ?? []).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
/** The tools OpenClaw's Tool Search lists in the system prompt without their schemas ("Available deferred-schema tools"). */
const deferredNames = (r: ModelRequest): string[] => {
  const system = JSON.stringify((r.body as { messages?: { role?: string; content?: unknown }[] }).messages?.find((m) => m.role === 'system')?.content ?? '');
  const at = system.indexOf('Available deferred-schema tools:');
  return at < 0 ? [] : [...system.slice(at).matchAll(/\\n- ([a-z][a-z0-9_-]*) \(/g)].map((m) => m[1]!);
};
const turnRequests = () => model.requests().filter((r) => JSON.stringify(r.body).includes(PHRASE) && toolNames(r).length > 0);

/**
 * The model's side of the turn. OpenClaw 2026.9.6 offers MCP tools through its Tool Search
 * (docs/tools/tool-search.md, on by default): `tool_search` finds them, `tool_call` calls them
 * by name. So: search for the server's tools (get-sum among what it asks for), then call
 * get-env and the denied get-sum by name, then answer with what came back.
 */
function respond(r: ModelRequest): ModelReply {
  const names = toolNames(r);
  if (!JSON.stringify(r.body).includes(PHRASE) || names.length === 0) return { text: 'nothing to do' };
  const results = toolResults(r);
  if (results.some((t) => t.includes(MCP_TOKEN))) return { text: 'the MCP server saw its token' };
  if (names.includes('everything__get-env')) return { toolCalls: [{ name: 'everything__get-env', arguments: {} }] };
  if (!names.includes('tool_search') || !names.includes('tool_call')) return { text: `no way to the MCP tools among ${names.join(', ')}` };
  if (results.length === 0) {
    const queries = ['echoes back the input string', 'returns all environment variables', 'returns the sum of two numbers'].map((query) => ({
      query,
      limit: 10,
    }));
    return { toolCalls: [{ name: 'tool_search', arguments: { queries } }] };
  }
  if (results.length === 1)
    return {
      toolCalls: [
        { name: 'tool_call', arguments: { id: 'everything__get-env', args: {} } },
        { name: 'tool_call', arguments: { id: 'everything__get-sum', args: { a: 1, b: 2 } } },
      ],
    };
  return { text: 'the MCP server did not answer with its token' };
}

/** What the turn's requests carried, for a failure's message. */
const turnSummary = () =>
  JSON.stringify(turnRequests().map((r) => ({ tools: toolNames(r), results: toolResults(r).map((t) => t.slice(0, 600)) }))).slice(0, 6000);

const waitFor = waiter(() => `last runtime lines: ${JSON.stringify(runtimeLines.slice(-8))}; the turn's requests: ${model && turnSummary()}`);

beforeAll(async () => {
  // Installed on demand and reused; a machine that cannot install it fails here, saying why.
  ensureOpenclaw(undefined, (line) => console.log(`openclaw install: ${line}`));
  model = await startModel({ responder: respond });
  tg = await startTelegram({ bots: [{ token: FRAN_BOT, username: 'fran_bot' }] });
  const dir = tempDir('cf-openclaw-tools-');
  const config = {
    fleet: 'demo',
    agents: {
      list: [
        {
          id: 'fran',
          name: 'Fran',
          model: 'openai/gpt-4.1-mini',
          runtime: { kind: 'openclaw', cpus: 1, memoryMb: 2048 },
          mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { EVERYTHING_TOKEN: 'MCP_TOKEN' } } } },
          secrets: ['MCP_TOKEN'],
          tools: { deny: ['write', 'everything__get-sum'] },
        },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
    channels: { telegram: { apiRoot: tg.url, dmPolicy: 'allowlist', allowFrom: [String(OWNER)], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY, MCP_TOKEN },
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: FRAN_BOT },
    }),
  );
  fleet = await startLocalFleet({
    configPath: join(dir, 'clawfleet.json'),
    secretsPath: join(dir, 'secrets.json'),
    stateDir: join(dir, 'state'),
    port: 0,
    log: memoryLogger(),
    onRuntimeLine: (agentId, line) => void runtimeLines.push({ agentId, line }),
  });
  await waitFor('fran ready', () => runtimeLines.find((l) => l.line.msg === 'ready'), 240_000);
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  await tg?.close();
  await model?.close();
});

describe(`an openclaw agent’s MCP servers and tools.deny, on OpenClaw ${OPENCLAW_VERSION}`, () => {
  it('offers the agent’s MCP server’s tools, leaves out what it denies, and calls the server with the env value from its own secret', async () => {
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: 700, chatId: OWNER, fromId: OWNER, text: PHRASE }));
    await waitFor('the reply', () => tg.calls('sendMessage').find((c) => String(c.params.text).includes('MCP server')), 240_000);
    const replies = tg.calls('sendMessage').filter((c) => String(c.params.text).includes('MCP server'));
    expect(
      replies.map((c) => c.params.text),
      turnSummary(),
    ).toEqual(['the MCP server saw its token']);

    const [first] = turnRequests();
    const offered = toolNames(first!);
    // Denied by the agent (tools.deny "write"): not offered, while the file tools beside it are.
    expect(offered, turnSummary()).toEqual(expect.arrayContaining(['read', 'edit']));
    expect(offered).not.toContain('write');
    // The tools listed by name only (Tool Search's directory): the agent's denial holds there too.
    const deferred = deferredNames(first!);
    expect(deferred, turnSummary()).toEqual(expect.arrayContaining(['memory_search', 'web_fetch']));
    expect(deferred).not.toContain('write');
    // Denied by the control plane in every openclaw agent's gateway (cron by OpenClaw's current name too).
    for (const name of [...DENIED_TOOLS, 'automations']) {
      expect(offered).not.toContain(name);
      expect(deferred).not.toContain(name);
    }
    // The MCP server's catalog, as Tool Search returned it: its tools named <server>__<tool>, but not the denied get-sum.
    const searched =
      turnRequests()
        .map((r) => toolResults(r))
        .find((t) => t.length === 1)?.[0] ?? '';
    expect(searched, turnSummary()).toContain('everything__echo');
    expect(searched).toContain('everything__get-env');
    expect(searched).not.toContain('get-sum');
    // Called by name: get-env ran in the server, its env carrying the value from fran's own secret; get-sum was refused, never run.
    const called =
      turnRequests()
        .map((r) => toolResults(r))
        .find((t) => t.length === 3) ?? [];
    expect(called.length, turnSummary()).toBe(3);
    expect(called[1]).toContain(MCP_TOKEN);
    expect(called[2]).not.toContain('The sum of 1 and 2 is 3');
  });
});
