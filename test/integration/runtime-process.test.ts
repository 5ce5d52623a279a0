// The runtime as a real process (the container's entry point) in the AWS emulator, next
// to two agents' secrets: it reads only its own, refuses another's, waits for a missing
// value (naming it, showing none, taking no message) and starts once it is set, announces
// itself, answers, and drains on SIGTERM with its MCP server gone.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { putSecretValues } from '../../shared/adapters/aws/secrets-manager-writer.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import type { MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { provisionFleet, type ProvisionedFleet, queueRuntimeEnv } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franMessage } from '../support/fran-turn.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const FRAN_KEY = 'sk-test-fran-only-0123456789abcdef';
const GRIF_KEY = 'sk-test-grif-only-0123456789abcdef';
const FRAN_MCP = 'mcp-fran-token-0123456789abcdef';
const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

let model: FakeModel;
let fleet: ProvisionedFleet;
let config: FleetConfig;
const runtimes: RuntimeProcess[] = [];

function envFor(agentId: string, cfg: FleetConfig, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...queueRuntimeEnv(aws, fleet, { config: cfg, agentId, workspace: tempDir(`cf-${agentId}-`), visibilitySeconds: 6, drainSeconds: 10 }),
    ...extra,
  };
}

function launch(env: Record<string, string>): RuntimeProcess {
  const r = startRuntime(env);
  runtimes.push(r);
  return r;
}

async function outboxEnvelopes(agentId: string, want: (e: Record<string, unknown>) => boolean, timeoutMs = 15_000): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !seen.some(want)) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: fleet.queues[agentId]!.outbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const m of Messages) {
      seen.push(JSON.parse(m.Body!));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: fleet.queues[agentId]!.outbox, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  return seen;
}

/** Ann's message `text` to fran, under the envelope id `id`. */
const message = (id: string, text: string): MessageEnvelope => ({ ...franMessage(0, text), id });
const send = (e: MessageEnvelope) =>
  sqs.send(
    new SendMessageCommand({
      QueueUrl: fleet.queues[e.agentId]!.inbox,
      MessageBody: JSON.stringify(e),
      MessageGroupId: e.sessionKey,
      MessageDeduplicationId: e.id,
    }),
  );

const startError = (r: RuntimeProcess) => String(r.lines.find((l) => l.msg === 'runtime failed to start')?.error);

beforeAll(async () => {
  model = await startModel({ apiKey: FRAN_KEY });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'rt';
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  const fran = example.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.mcp = { servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { EVERYTHING_TOKEN: 'MCP_TOKEN' } } } };
  config = parseConfig(example);
  fleet = await provisionFleet(aws, config, {
    telegram: {},
    agents: { fran: { OPENAI_API_KEY: FRAN_KEY, MCP_TOKEN: FRAN_MCP }, grif: { OPENAI_API_KEY: GRIF_KEY } },
  });
});

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill('SIGKILL')));
  await model?.close();
});

describe('a runtime next to two agents’ secrets', () => {
  it('reads its own secret, announces itself, answers with its own key, drains on SIGTERM and leaves no MCP process', async () => {
    const franEnv = envFor('fran', config);
    const fran = launch(franEnv);
    const ready = await fran.waitFor((l) => l.msg === 'ready');
    expect(ready).toMatchObject({ mcp: { everything: { state: 'ready' } } });
    const hello = await outboxEnvelopes('fran', (e) => e.kind === 'heartbeat');
    expect(hello.find((e) => e.kind === 'heartbeat')).toMatchObject({
      agentId: 'fran',
      version: expect.any(String),
      capabilities: expect.arrayContaining(['tool:exec', 'tool:everything__echo', 'mcp:everything']),
    });

    // A turn still running when SIGTERM arrives is finished before the runtime exits.
    model.script({ text: 'answered while draining', delayMs: 1_500 });
    await send(message('rt.1', 'hello'));
    await model.waitForRequests(1, 15_000);
    expect(model.requests().at(-1)?.headers.authorization).toBe(`Bearer ${FRAN_KEY}`);
    const code = fran.kill('SIGTERM');
    const out = await outboxEnvelopes('fran', (e) => e.kind === 'reply');
    expect(out.find((e) => e.kind === 'reply')).toMatchObject({ inReplyTo: 'rt.1', text: 'answered while draining' });
    expect(await code).toBe(0);
    expect(fran.output()).toContain('"msg":"stopping"');
    // Its MCP server went with it (this runtime's: it runs in fran's workspace; other test
    // files may run the same server at the same time).
    const left = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return (
            readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(EVERYTHING) &&
            readlinkSync(`/proc/${d}/cwd`) === franEnv.CLAWFLEET_WORKSPACE &&
            !readFileSync(`/proc/${d}/stat`, 'utf8').includes(') Z ')
          );
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
    // No secret value ever reached a log line.
    for (const value of [FRAN_KEY, GRIF_KEY, FRAN_MCP]) expect(fran.output()).not.toContain(value);
  });

  it('refuses to read another agent’s secret', async () => {
    const r = launch(envFor('fran', config, { CLAWFLEET_SECRET_ID: agentSecretName('rt', 'grif') }));
    expect(await r.exited).toBe(1);
    expect(startError(r)).toMatch(/CLAWFLEET_SECRET_ID: names "clawfleet\/rt\/agents\/grif", which is not this agent's secret "clawfleet\/rt\/agents\/fran"/);
    expect(r.output()).not.toContain(GRIF_KEY);
  });

  it('waits for a value its config needs, naming it but no value, takes no message meanwhile, and answers once it is set', async () => {
    const example = JSON.parse(JSON.stringify(config));
    example.agents.list.find((a: { id: string }) => a.id === 'fran').secrets = ['GRAPH_TOKEN'];
    const r = launch(envFor('fran', parseConfig(example), { CLAWFLEET_HEARTBEAT_SECONDS: '1' }));
    const waiting = await r.waitFor((l) => l.msg === 'waiting for secret values; taking no work until they are set');
    expect(waiting).toMatchObject({ level: 'warn', secret: 'clawfleet/rt/agents/fran', missing: ['GRAPH_TOKEN'] });
    // Its heartbeats say so (the registry, `clawfleet status` and the dashboard show the warning).
    const said = await outboxEnvelopes('fran', (e) => e.kind === 'heartbeat' && Array.isArray(e.warnings) && (e.warnings as string[]).length > 0);
    expect(said.find((e) => e.kind === 'heartbeat')?.warnings).toEqual([
      'waiting for secret "clawfleet/rt/agents/fran": it lacks GRAPH_TOKEN (agents.list[].secrets). Set with: clawfleet secrets set <NAME> --agent fran --aws (< value), which restarts the agent',
    ]);
    // A message waits in the queue, untouched: nothing receives it while the value is missing.
    await send(message('rt.wait.1', 'are you there?'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const depth = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: fleet.queues.fran!.inbox,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(depth.Attributes).toMatchObject({ ApproximateNumberOfMessages: '1', ApproximateNumberOfMessagesNotVisible: '0' });
    expect(r.child.exitCode).toBeNull();

    await putSecretValues(new SecretsManagerClient(aws), agentSecretName('rt', 'fran'), { GRAPH_TOKEN: 'graph-token-0123456789abcdef' });
    await r.waitFor((l) => l.msg === 'ready', 90_000);
    const out = await outboxEnvelopes('fran', (e) => e.kind === 'reply', 30_000);
    expect(out.find((e) => e.kind === 'reply')).toMatchObject({ inReplyTo: 'rt.wait.1' });
    for (const value of [FRAN_KEY, GRIF_KEY, FRAN_MCP, 'graph-token-0123456789abcdef']) expect(r.output()).not.toContain(value);
    expect(await r.kill('SIGTERM')).toBe(0);
  }, 120_000);

  it('stops at once, exit 0, when told to while it waits', async () => {
    const example = JSON.parse(JSON.stringify(config));
    example.agents.list.find((a: { id: string }) => a.id === 'fran').secrets = ['NEVER_SET_TOKEN'];
    const r = launch(envFor('fran', parseConfig(example)));
    await r.waitFor((l) => l.msg === 'waiting for secret values; taking no work until they are set');
    expect(await r.kill('SIGTERM')).toBe(0);
    expect(r.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['stopping', 'exiting']));
    expect(r.lines.some((l) => l.msg === 'runtime failed to start')).toBe(false);
  });
});
