// A local control plane (the real cores and SQLite adapters, in memory) in front of the
// fake Telegram Bot API, with runtimes driven by the real turn code (runTurn) and a model
// that answers from a function: the whole path a message and its answer take, without
// child processes, for the attacks in test/security/ on who hears which answer.
import type { Message } from '@mariozechner/pi-ai';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { memoryLogger } from '../../shared/log.ts';
import { parseInbound, type InboundEnvelope, type OutboundEnvelope, PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { LocalControlPlane, type LocalControlPlaneOptions } from '../../local/sqlite-control-plane.ts';
import { assistantMessage, type ModelClient, type ModelRequest } from '../../runtime-image/src/model/model.ts';
import { requestTools } from '../../runtime-image/src/tools/request-tools.ts';
import type { AgentTool } from '../../runtime-image/src/tools/tool.ts';
import { TranscriptStore } from '../../runtime-image/src/session/transcript-store.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { type TurnOutcome } from '../../runtime-image/src/turn/turn-answer.ts';
import { defaultTurnLimits } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from './fake-telegram.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import type { SecretScan } from './secret-scan.ts';
import { tempDir } from './temp-dirs.ts';
import { botAccounts, botBindings } from './telegram-bots.ts';

export const BOT_TOKENS = { fran: '7100001:AAfran-authority-token-000000000000', grif: '7100002:AAgrif-authority-token-000000000000' };
export const HOOKS_TOKEN = 'authority-hooks-token-0123456789abcdef';

export interface AuthorityPlane {
  cp: LocalControlPlane;
  tg: FakeTelegram;
  log: ReturnType<typeof memoryLogger>;
  clock: { now(): number; advance(ms: number): void };
  /** Telegram delivers a private message from `fromId` to an agent's bot; resolves with the webhook's answer. */
  write(agentId: keyof typeof BOT_TOKENS, fromId: number, text: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A runtime for the agent: the real turn code over its local queue, answering through its outbox. */
  runtime(agentId: string, model: ModelClient, opts?: { tools?: AgentTool[] }): TestRuntime;
  /** Texts the fake Bot API was asked to send, with the chat each went to. */
  sent(): { chatId: string; text: string; token: string }[];
  /** Reasons of everything refused into an agent's outbox DLQ, oldest first. */
  refused(agentId: string): string[];
  close(): Promise<void>;
}

export interface TestRuntime {
  /** Takes the next message off the agent's queue (or undefined) without running its turn. */
  take(): Promise<{ envelope: InboundEnvelope; receipt: string } | undefined>;
  /** Runs a taken message's turn to its end and deletes the message, as the worker does. */
  finish(taken: { envelope: InboundEnvelope; receipt: string }): Promise<TurnOutcome>;
  /** take + finish; undefined when the queue is empty. */
  next(): Promise<InboundEnvelope | undefined>;
  /** Sends an envelope on the agent's outbox exactly as given (a compromised runtime). */
  forge(envelope: Record<string, unknown>): Promise<void>;
}

let updateIds = 1_000;

/** `config` replaces top-level keys of the two-agent fleet; the Telegram channel is always the fake's, with `dmPolicy` (default open). */
export async function startAuthorityPlane(
  config: Partial<FleetConfigInput> = {},
  opts: { dmPolicy?: 'open' | 'pairing'; spendAlerts?: LocalControlPlaneOptions['spendAlerts'] } = {},
): Promise<AuthorityPlane> {
  const tg = await startTelegram({
    bots: [
      { token: BOT_TOKENS.fran, username: 'fran_bot' },
      { token: BOT_TOKENS.grif, username: 'grif_bot' },
    ],
  });
  const fleet = parseConfig({
    fleet: 'auth',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran', default: true }, { id: 'grif' }] },
    models: { providers: { openai: { api: 'openai-completions' } } },
    bindings: botBindings(['fran', 'grif']),
    channels: {
      telegram: {
        apiRoot: tg.url,
        dmPolicy: opts.dmPolicy ?? 'open',
        accounts: botAccounts(['fran', 'grif']),
      },
    },
    hooks: { tokenSecret: 'HOOKS_TOKEN' },
    ...config,
  });
  const secrets = new InMemorySecretStore({
    'clawfleet/auth/control/telegram': { FRAN_BOT_TOKEN: BOT_TOKENS.fran, GRIF_BOT_TOKEN: BOT_TOKENS.grif },
    'clawfleet/auth/control/hooks': { HOOKS_TOKEN },
    'clawfleet/auth/control/dashboard': {},
  });
  let t = Date.parse('2026-12-01T10:00:00Z');
  const clock = { now: () => t, advance: (ms: number) => void (t += ms) };
  const log = memoryLogger();
  const cp = new LocalControlPlane(fleet, openStateDatabase(':memory:'), secrets, clock, log, opts.spendAlerts ? { spendAlerts: opts.spendAlerts } : {});

  return {
    cp,
    tg,
    log,
    clock,
    async write(agentId, fromId, text) {
      const update = textUpdate({ updateId: ++updateIds, chatId: fromId, fromId, text, firstName: `user${fromId}`, date: Math.floor(clock.now() / 1000) });
      return cp.telegramUpdate(agentId, webhookSecretFor(BOT_TOKENS[agentId]), JSON.stringify(update));
    },
    runtime(agentId, model, opts = {}) {
      const workspace = tempDir(`cf-auth-${agentId}-`);
      const deps = {
        agentId,
        agentName: agentId,
        workspace,
        transcripts: new TranscriptStore(workspace),
        model,
        outbox: { send: (e: OutboundEnvelope) => cp.outbox(agentId, JSON.stringify(e)) },
        clock,
        log,
        tools: () => opts.tools ?? requestTools(agentId, clock),
        masker: secretMasker([]),
        limits: defaultTurnLimits,
      };
      const take = async () => {
        const [m] = await cp.inbox(agentId).receive(0);
        return m ? { envelope: parseInbound(m.body), receipt: m.receipt } : undefined;
      };
      const finish = async ({ envelope, receipt }: { envelope: InboundEnvelope; receipt: string }) => {
        if (envelope.kind === 'control') throw new Error('no control envelopes in these tests');
        const outcome = await runTurn(turnRequestFor(envelope), deps, new AbortController().signal);
        await cp.inbox(agentId).delete(receipt);
        return outcome;
      };
      return {
        take,
        finish,
        async next() {
          const taken = await take();
          if (!taken) return undefined;
          await finish(taken);
          return taken.envelope;
        },
        forge: (envelope) => cp.outbox(agentId, JSON.stringify({ v: PROTOCOL_VERSION, agentId, ts: clock.now(), ...envelope })),
      };
    },
    sent: () => tg.calls('sendMessage').map((c) => ({ chatId: String(c.params.chat_id), text: String(c.params.text), token: c.token })),
    refused: (agentId) =>
      cp
        .dlq(agentId)
        .list(1_000)
        .map((l) => l.reason)
        .reverse(),
    close: () => tg.close(),
  };
}

/** The text of the last user-role message the model was given. */
export function lastUserText(messages: Message[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}

/** A model that answers each turn with `answer(lastUserText)`, or calls the tools `calls(...)` names first. */
export function modelFrom(
  answer: (userText: string) => string,
  calls?: (userText: string) => { name: string; args: Record<string, unknown> }[],
): ModelClient & { turns: string[] } {
  const turns: string[] = [];
  let n = 0;
  return {
    label: 'scripted/authority',
    contextWindow: 100_000,
    turns,
    async complete(req: ModelRequest) {
      const user = lastUserText(req.messages);
      const afterTools = req.messages.at(-1)?.role === 'toolResult';
      if (!afterTools) turns.push(user);
      const wanted = afterTools ? [] : (calls?.(user) ?? []);
      const content = wanted.length
        ? wanted.map((c) => ({ type: 'toolCall' as const, id: `call_${++n}`, name: c.name, arguments: c.args }))
        : [{ type: 'text' as const, text: answer(user) }];
      return { ok: true, message: assistantMessage('scripted/authority', content) };
    },
  };
}

/** Records what the planes wrote where someone could read it (log lines, messages sent) into `scan`, for a leaked-secret check. */
export function recordPlaneOutput(scan: SecretScan, ...planes: AuthorityPlane[]): void {
  for (const p of planes) {
    scan.record('log lines', p.log.lines.map((l) => JSON.stringify(l)).join('\n'));
    scan.record(
      'messages sent',
      p.tg
        .calls()
        .map((c) => JSON.stringify(c.params))
        .join('\n'),
    );
  }
}
