// An agent whose secret lacks a value its config needs waits instead of exiting: it
// heartbeats "waiting for secret …" (names, never values), keeps its health file fresh,
// takes no message from its queue, reads its secret again with backoff and starts work as
// soon as the values are there; a stop while it waits ends the wait.
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor, type RuntimeConfig } from '../../shared/config/resolve.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock, type Inbox } from '../../shared/ports.ts';
import { parseOutbound, type OutboundEnvelope } from '../../shared/protocol/envelopes.ts';

type HeartbeatEnvelope = Extract<OutboundEnvelope, { kind: 'heartbeat' }>;
import { startAgentRuntime, type AgentRuntime } from '../../runtime-image/src/kinds/native.ts';
import { readRuntimeEnv } from '../../runtime-image/src/env.ts';
import { awaitSecrets, missingSecrets, waitingWarning, type SecretWaitDeps } from '../../runtime-image/src/secrets/secret-wait.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { inMemoryRuntimeParts } from '../support/in-process-runtime.ts';

const SECRET = 'clawfleet/demo/agents/fran';
const GRAPH = 'graph-token-value-0123456789abcdef';
const MCP = 'mcp-token-value-0123456789abcdef';
const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/** fran of the example fleet, needing GRAPH_TOKEN (agents.list[].secrets) and MCP_TOKEN (an MCP server). */
function franConfig(): RuntimeConfig {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  const fran = raw.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.secrets = ['GRAPH_TOKEN'];
  fran.mcp = { servers: { graph: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { EVERYTHING_TOKEN: 'MCP_TOKEN' } } } };
  return runtimeConfigFor(parseConfig(raw), 'fran');
}

const heartbeats = (outbox: InMemoryOutbox) =>
  outbox.queue
    .bodies()
    .map((b) => parseOutbound(b))
    .filter((e): e is HeartbeatEnvelope => e.kind === 'heartbeat');

/** A secret whose reads answer from `answers` in turn (the last one repeats). */
function scriptedSecret(...answers: (Record<string, string> | Error)[]) {
  let reads = 0;
  return {
    get reads() {
      return reads;
    },
    read: async () => {
      const answer = answers[Math.min(reads++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

function deps(read: () => Promise<Record<string, string>>, outbox: InMemoryOutbox, extra: Partial<SecretWaitDeps> = {}): SecretWaitDeps {
  return {
    config: franConfig(),
    secretId: SECRET,
    modelKeys: false,
    read,
    howToSet: 'clawfleet secrets set <NAME> --agent fran --aws',
    outbox,
    clock: systemClock,
    log: memoryLogger(),
    version: 'test',
    heartbeatMs: 20,
    recheck: { firstMs: 10, maxMs: 40 },
    ...extra,
  };
}

describe('awaitSecrets', () => {
  it('returns at once, saying nothing, when every value is there', async () => {
    const outbox = new InMemoryOutbox();
    const secret = scriptedSecret({ GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP });
    expect(await awaitSecrets(deps(secret.read, outbox))).toEqual({ GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP });
    expect(secret.reads).toBe(1);
    expect(outbox.queue.depth).toBe(0);
  });

  it('starts on a secret that has no value yet when the config needs none (an agent on Bedrock): no "set it to {}" first', async () => {
    const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    const outbox = new InMemoryOutbox();
    const notSet = scriptedSecret(new ClawfleetError('SECRET_NOT_FOUND', `cannot read secret "${SECRET}": ResourceNotFoundException`));
    const config = runtimeConfigFor(parseConfig(raw), 'fran');
    expect(missingSecrets(config, {}, { modelKeys: false })).toEqual([]);
    expect(await awaitSecrets({ ...deps(notSet.read, outbox), config })).toEqual({});
    expect(outbox.queue.depth).toBe(0);
  });

  it('waits for a secret that has no value yet, heartbeating which values it needs, and returns them once set', async () => {
    const outbox = new InMemoryOutbox();
    const secret = scriptedSecret(
      new ClawfleetError('SECRET_NOT_FOUND', `cannot read secret "${SECRET}": ResourceNotFoundException`),
      new ClawfleetError('SECRET_NOT_FOUND', `cannot read secret "${SECRET}": ResourceNotFoundException`),
      { GRAPH_TOKEN: GRAPH },
      { GRAPH_TOKEN: GRAPH },
      { GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP },
    );
    const log = memoryLogger();
    const values = await awaitSecrets(deps(secret.read, outbox, { log }));
    expect(values).toEqual({ GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP });
    expect(secret.reads).toBe(5);
    const warnings = heartbeats(outbox).map((h) => h.warnings);
    // First the whole secret is missing, then only the MCP token: each change is said at once.
    expect(warnings[0]).toEqual([
      `waiting for secret "${SECRET}": it has no value yet; it must hold GRAPH_TOKEN (agents.list[].secrets), MCP_TOKEN (MCP server "graph"). Set with: clawfleet secrets set <NAME> --agent fran --aws`,
    ]);
    expect(warnings).toContainEqual([
      `waiting for secret "${SECRET}": it lacks MCP_TOKEN (MCP server "graph"). Set with: clawfleet secrets set <NAME> --agent fran --aws`,
    ]);
    expect(heartbeats(outbox).every((h) => h.agentId === 'fran' && h.inFlight === 0 && h.id.startsWith('hb.fran.'))).toBe(true);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'waiting for secret values; taking no work until they are set', missing: ['MCP_TOKEN'] }),
    );
    expect(log.lines.at(-1)).toMatchObject({ msg: 'secret values found; starting', secret: SECRET });
    // Names only, anywhere: no value in a heartbeat or a log line.
    const said = JSON.stringify([outbox.queue.bodies(), log.lines]);
    for (const value of [GRAPH, MCP]) expect(said).not.toContain(value);
  });

  it('keeps heartbeating while it waits, so the health tick never takes it for dead', async () => {
    const outbox = new InMemoryOutbox();
    let reads = 0;
    const read = async (): Promise<Record<string, string>> => (++reads >= 8 ? { GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP } : { GRAPH_TOKEN: GRAPH });
    await awaitSecrets(deps(read, outbox, { heartbeatMs: 10, recheck: { firstMs: 10, maxMs: 20 } }));
    // One said at once, then one every 10 ms over the ~120 ms of the wait.
    expect(heartbeats(outbox).length).toBeGreaterThan(3);
    expect(new Set(heartbeats(outbox).map((h) => h.id)).size).toBe(heartbeats(outbox).length);
  });

  it('names a secret it cannot read or parse by the error’s name, never by a value', async () => {
    const outbox = new InMemoryOutbox();
    const secret = scriptedSecret(
      new ClawfleetError('SECRET_UNREADABLE', `cannot read secret "${SECRET}": AccessDeniedException`),
      new ClawfleetError('SECRET_MALFORMED', `secret "${SECRET}" is not a JSON object of named values`),
      { GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP },
    );
    await awaitSecrets(deps(secret.read, outbox));
    const warnings = heartbeats(outbox).flatMap((h) => h.warnings ?? []);
    expect(warnings).toContainEqual(
      expect.stringContaining(`waiting for secret "${SECRET}": it cannot be read (AccessDeniedException); it must hold GRAPH_TOKEN`),
    );
    expect(warnings).toContainEqual(
      expect.stringContaining(`waiting for secret "${SECRET}": it is not a JSON object of named string values; it must hold GRAPH_TOKEN`),
    );
  });

  it('lets any other failure through: only a missing, unreadable or malformed secret is waited out', async () => {
    const outbox = new InMemoryOutbox();
    await expect(awaitSecrets(deps(async () => Promise.reject(new TypeError('boom')), outbox))).rejects.toThrow('boom');
  });

  it('ends the wait when stopped, and says nothing more after it', async () => {
    const outbox = new InMemoryOutbox();
    const stop = new AbortController();
    const waiting = awaitSecrets(deps(async () => ({}), outbox, { signal: stop.signal, recheck: { firstMs: 60_000, maxMs: 60_000 } }));
    await expect.poll(() => heartbeats(outbox).length).toBeGreaterThan(1);
    stop.abort();
    await expect(waiting).rejects.toMatchObject({
      code: 'STOPPED_WAITING_FOR_SECRET',
      message: `stopped while waiting for secret "${SECRET}" (GRAPH_TOKEN, MCP_TOKEN)`,
    });
    const after = heartbeats(outbox).length;
    await new Promise((r) => setTimeout(r, 60));
    expect(heartbeats(outbox).length).toBe(after);
  });

  it('counts an empty string as missing, and keeps a warning within the heartbeat’s 500 characters', () => {
    const config = franConfig();
    expect(missingSecrets(config, { GRAPH_TOKEN: '', MCP_TOKEN: MCP }, { modelKeys: false }).map((m) => m.name)).toEqual(['GRAPH_TOKEN']);
    const many = Array.from({ length: 40 }, (_, i) => ({ name: `VALUE_NUMBER_${i}`, usedBy: 'agents.list[].secrets' }));
    const text = waitingWarning(SECRET, many, 'clawfleet secrets set <NAME> --agent fran --aws');
    expect(text.length).toBe(500);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('a runtime whose secret lacks a value', () => {
  let runtime: AgentRuntime | undefined;
  afterEach(async () => {
    await runtime?.stop(0);
    runtime = undefined;
  });

  it('takes no message while it waits, keeps its health file fresh, and answers once the value is set', async () => {
    // The health file beside the workspace, as the image has them, both inside a temp dir of their own.
    const root = tempDir('cf-secret-wait-');
    const workspace = join(root, 'workspace');
    mkdirSync(workspace);
    const healthFile = join(root, 'alive');
    const env = await readRuntimeEnv(
      {
        CLAWFLEET_AGENT_ID: 'fran',
        CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(franConfig()),
        CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1',
        CLAWFLEET_SECRETS_FD: '3',
        CLAWFLEET_OFFLINE_MODEL: 'no key in this test',
        CLAWFLEET_WORKSPACE: workspace,
        CLAWFLEET_HEARTBEAT_SECONDS: '1',
        CLAWFLEET_WAIT_SECONDS: '1',
        CLAWFLEET_HEALTH_FILE: healthFile,
        CLAWFLEET_SANDBOX: 'bwrap',
        CLAWFLEET_BWRAP: '/nonexistent/bwrap',
      },
      async () => JSON.stringify({ token: 'x'.repeat(16), secrets: {} }),
    );
    const queue = new InMemoryFifoQueue();
    let receives = 0;
    const inbox: Inbox = {
      receive: (...a) => (receives++, queue.receive(...a)),
      extend: (...a) => queue.extend(...a),
      delete: (...a) => queue.delete(...a),
      release: (...a) => queue.release(...a),
    };
    queue.push(
      JSON.stringify({
        v: PROTOCOL_VERSION,
        kind: 'message',
        id: 'tg.fran.1',
        agentId: 'fran',
        sessionKey: 'agent:fran:main',
        ts: 1,
        text: 'are you there?',
        from: { channel: 'telegram', accountId: 'fran' },
      }),
      'agent:fran:main',
      'tg.fran.1',
    );
    const outbox = new InMemoryOutbox();
    let values: Record<string, string> = { GRAPH_TOKEN: GRAPH };
    /** How many receives there had been at each read of the secret. */
    const receivesAtRead: number[] = [];
    const starting = startAgentRuntime(inMemoryRuntimeParts(env, { inbox, outbox, readSecrets: async () => (receivesAtRead.push(receives), values) }));
    // Waiting: the warning said, no receive meanwhile.
    await expect.poll(() => heartbeats(outbox).length).toBeGreaterThanOrEqual(1);
    expect(heartbeats(outbox)[0]?.warnings?.[0]).toMatch(
      /^waiting for secret "clawfleet\/demo\/agents\/fran": it lacks MCP_TOKEN \(MCP server "graph"\)\. Set with: clawfleet secrets set <NAME> --agent fran \(< value\), which restarts the agent$/,
    );
    expect(receives).toBe(0);
    expect(queue.depth).toBe(1);
    expect(Date.now() - Number(readFileSync(healthFile, 'utf8'))).toBeLessThan(60_000);
    expect(statSync(healthFile).mtimeMs).toBeGreaterThan(Date.now() - 15_000);

    // Set: a later read (a second apart; how many depends on the machine's pace) finds it, and the runtime starts,
    // having received nothing before.
    values = { GRAPH_TOKEN: GRAPH, MCP_TOKEN: MCP };
    runtime = await starting;
    expect(receivesAtRead.length).toBeGreaterThanOrEqual(2);
    expect(receivesAtRead.every((n) => n === 0)).toBe(true);
    const replies = () =>
      outbox.queue
        .bodies()
        .map((b) => parseOutbound(b) as OutboundEnvelope)
        .filter((e) => e.kind === 'reply');
    await expect.poll(replies).toEqual([expect.objectContaining({ inReplyTo: 'tg.fran.1' })]);
    // Its first heartbeat after the wait clears the warning (the MCP server's own state aside).
    const started = heartbeats(outbox).find((h) => h.capabilities);
    expect(started?.warnings?.some((w) => w.startsWith('waiting for secret'))).toBe(false);
  });
});
