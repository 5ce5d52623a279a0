// Local mode's control plane: the same core as the Lambdas (webhook and hook admission,
// outbox authority checks and delivery, agent-to-agent relay, agents' own cron jobs, cron
// dispatch, wake and hibernate), with embedded adapters. Queues, registry, schedules,
// dead letters and the chat box live in one SQLite file, so what was queued survives a restart.
import { answerPlaneCommand } from '../shared/control/command-answers.ts';
import { parseCommand } from '../shared/control/commands.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { localQueueNames, SqliteAgentQueues, type SqliteDeadLetters, type SqliteFifoQueue } from '../shared/adapters/sqlite/sqlite-queues.ts';
import { SqlitePairingStore } from '../shared/adapters/sqlite/sqlite-pairing-store.ts';
import { SqliteAgentMetrics } from '../shared/adapters/sqlite/sqlite-agent-metrics.ts';
import { SqliteAgentRegistry } from '../shared/adapters/sqlite/sqlite-agent-registry.ts';
import { SqliteCronScheduler } from '../shared/adapters/sqlite/sqlite-cron-scheduler.ts';
import { SqliteInboundOrigins } from '../shared/adapters/sqlite/sqlite-inbound-origins.ts';
import { SqliteReactionRates } from '../shared/adapters/sqlite/sqlite-reaction-rates.ts';
import { SqliteSentMessages } from '../shared/adapters/sqlite/sqlite-sent-messages.ts';
import { SqliteRelayRates } from '../shared/adapters/sqlite/sqlite-relay-rates.ts';
import { SqliteSpendCounts, SqliteSpendLedger } from '../shared/adapters/sqlite/sqlite-spend.ts';
import { agentCaps, budgetRefusal } from '../shared/control/budget-gate.ts';
import { TelegramAccounts } from '../shared/adapters/telegram/telegram-accounts.ts';
import { DASHBOARD_TOKEN_NAME } from '../shared/dashboard/auth.ts';
import { SqliteAgentStatus, SqliteDeliveryLedger, SqliteInboundDedupe, SqliteSessionRegistry } from '../shared/adapters/sqlite/sqlite-state.ts';
import { outboxQueueName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { pairingCode } from '../shared/control/access.ts';
import { ControlPlane } from '../shared/control/control-plane.ts';
import { dispatchTrigger, type CronDispatchDeps, type DispatchOutcome } from '../shared/control/cron-dispatch.ts';
import { handleHook, type HookRequest } from '../shared/control/hooks.ts';
import { wakeIfAsleep, type LifecycleDeps } from '../shared/control/lifecycle.ts';
import { newOrigin } from '../shared/control/origins.ts';
import { streamRequestFor } from '../shared/control/streaming.ts';
import { processOutboxRecord } from '../shared/control/outbox.ts';
import { handleTelegramWebhook, type HttpResult } from '../shared/control/telegram-webhook.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { errorFields, type Logger } from '../shared/log.ts';
import type { CronTrigger } from '../shared/cron/trigger.ts';
import { RetryLaterError, type AgentCompute, type ChannelTarget, type Clock, type MediaStore, type SecretStore } from '../shared/ports.ts';
import { LocalChat } from './local-chat.ts';
import { mainSessionKey } from '../shared/routing/session-key.ts';
import { buttonPressText, PROTOCOL_VERSION, type MessageEnvelope } from '../shared/protocol/envelopes.ts';
import { attachmentKindOf } from '../shared/media/file-kind.ts';
import { inboundMediaKey } from '../shared/media/media-ref.ts';
import type { SpendAlarm } from '../shared/budget/budget.ts';
import { SqliteAlertRates } from '../shared/adapters/sqlite/sqlite-alert-rates.ts';
import { operatorAlertDeps, type OperatorAlertDeps } from '../shared/control/operator-alerts.ts';
import { spendAlarmPorts } from '../shared/control/spend-alarm.ts';

/** As the CDK app's redrive policy: a message handed out this often without success is parked. */
/** How long a chat box command's id is remembered (each typed command has its own id). */
const CHAT_COMMAND_DEDUPE_MS = 3_600_000;

export const LOCAL_MAX_RECEIVE_COUNT = 5;
/**
 * The longest Telegram `retry_after` a runtime's outbox call is held for: well inside the
 * runtime's HTTP patience (its fetch gives up on headers after 300 s). Longer waits fail the
 * call as before, and the message is redelivered.
 */
const MAX_RETRY_AFTER_HOLD_SECONDS = 120;

export interface LocalControlPlaneOptions {
  /** Starts and stops runtimes (the supervisor); without it, nothing is woken or hibernated. */
  compute?: AgentCompute;
  /** What time it is for schedules; the control plane's clock unless a test moves it ahead. */
  scheduleClock?: Clock;
  /** Where attachments and agents' files are kept (#16; a directory under the state directory); without it, attachments arrive as notes. */
  media?: MediaStore;
  /** Why an agent runs its offline stand-in model (no model key), for /status. */
  offlineModels?: (agentId: string) => string | undefined;
  /** Tells the operator a spend alarm (#31); without it, alarms are logged. */
  spendAlerts?: (agentId: string, alarm: SpendAlarm) => Promise<void>;
}

export class LocalControlPlane {
  readonly queues: SqliteAgentQueues;
  readonly sessions: SqliteSessionRegistry;
  readonly dedupe: SqliteInboundDedupe;
  readonly ledger: SqliteDeliveryLedger;
  /** Last heartbeat and error, as `clawfleet status` shows them. */
  readonly status: SqliteAgentStatus;
  /** The same table as the registry the lifecycle cores use: state, heartbeat, activity, errors. */
  readonly registry: SqliteAgentRegistry;
  /** Where each inbound came from: the only place its answer goes. */
  readonly origins: SqliteInboundOrigins;
  /** The per-pair agent-to-agent rate limit. */
  readonly relayRates: SqliteRelayRates;
  /** The bot's messages, whose reactions reach the agent that sent them (#31). */
  readonly sentMessages: SqliteSentMessages;
  /** The users' reactions per chat (#31). */
  readonly reactionRates: SqliteReactionRates;
  /** The fleet's schedule group: the config's jobs and heartbeats, and agents' own jobs. */
  readonly scheduler: SqliteCronScheduler;
  /** Wake and hibernate, wired as on AWS; absent without a compute. */
  readonly lifecycle: LifecycleDeps | undefined;
  readonly pairings: SqlitePairingStore;
  readonly chat: LocalChat;
  /** Turn counts, timings and queue samples for the dashboard's charts. */
  readonly metrics: SqliteAgentMetrics;
  /** The bots of the config's Telegram accounts, their tokens from the local secrets file. */
  readonly telegram: TelegramAccounts;
  /** Attachments and agents' files (#16); undefined where this fleet keeps none. */
  readonly media: MediaStore | undefined;
  /** Budgets (#31): each agent's spend as the control plane counts it from its usage reports. */
  readonly spend: SqliteSpendCounts;
  /** Budgets (#31): each runtime's own ledger, which it reserves and settles in through its channel (/runtime/spend). */
  readonly spendLedger: SqliteSpendLedger;
  /** The same composition as every Lambda's (shared/control/control-plane.ts), over the adapters above. */
  private readonly plane: ControlPlane;

  constructor(
    readonly config: FleetConfig,
    readonly db: StateDatabase,
    secrets: SecretStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    opts: LocalControlPlaneOptions = {},
  ) {
    this.queues = new SqliteAgentQueues(db, { now: clock.now, maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT });
    this.sessions = new SqliteSessionRegistry(db);
    this.dedupe = new SqliteInboundDedupe(db, clock.now);
    this.ledger = new SqliteDeliveryLedger(db);
    this.status = new SqliteAgentStatus(db);
    this.registry = new SqliteAgentRegistry(db);
    this.origins = new SqliteInboundOrigins(db, clock.now);
    this.relayRates = new SqliteRelayRates(db);
    this.sentMessages = new SqliteSentMessages(db, clock.now);
    this.reactionRates = new SqliteReactionRates(db);
    const scheduleClock = opts.scheduleClock ?? clock;
    this.scheduler = new SqliteCronScheduler(db, () => scheduleClock.now());
    this.pairings = new SqlitePairingStore(db);
    this.chat = new LocalChat(db, clock.now);
    this.metrics = new SqliteAgentMetrics(db, clock.now);
    const secretsWhere = 'in the local secrets file';
    this.telegram = new TelegramAccounts({ config, secrets, where: secretsWhere });
    this.media = opts.media;
    this.spend = new SqliteSpendCounts(db);
    this.spendLedger = new SqliteSpendLedger(db);
    this.plane = new ControlPlane(
      { config, clock, log, component: 'local', newId: () => randomUUID(), newPairingCode: () => pairingCode(randomBytes), secretsWhere },
      {
        queues: () => this.queues,
        dedupe: () => this.dedupe,
        sessions: () => this.sessions,
        origins: () => this.origins,
        ledger: () => this.ledger,
        pairings: () => this.pairings,
        registry: () => this.registry,
        metrics: () => this.metrics,
        depths: () => ({ depth: async (agentId) => this.inbox(agentId).depth }),
        relayRates: () => this.relayRates,
        sentMessages: () => this.sentMessages,
        reactionRates: () => this.reactionRates,
        alertRates: () => new SqliteAlertRates(db),
        secrets: () => secrets,
        telegram: () => this.telegram,
        outboxDeadLetters: () => (agentId) => this.dlq(agentId ?? 'unknown'),
        compute: () => opts.compute,
        scheduler: () => this.scheduler,
        localChat: () => this.chat,
        media: () => this.media,
        offlineModels: () => opts.offlineModels,
        spendCounts: () => this.spend,
        // Spend alarms (#31): through the operator channel, as λ outbox tells them, unless a test listens itself.
        spendAlerts: (plane) => opts.spendAlerts ?? spendAlarmPorts().spendAlerts!(plane),
      },
    );
    this.lifecycle = this.plane.lifecycle;
  }

  inbox(agentId: string): SqliteFifoQueue {
    return this.queues.queue(agentId);
  }

  /** Inbound envelopes the agent's runtime could not process (its queue's DLQ). */
  inboxDlq(agentId: string): SqliteDeadLetters {
    return this.queues.deadLetters(localQueueNames(agentId).inboxDlq);
  }

  /** What operator alerts go through: the operator's chat, its bot, the ledger and the alert counters (local/operator-alarms.ts). */
  operatorAlertDeps(): OperatorAlertDeps {
    return operatorAlertDeps(this.plane);
  }

  /** Outbound envelopes the control plane refused (the agent's outbox DLQ). */
  dlq(agentId: string): SqliteDeadLetters {
    return this.queues.deadLetters(localQueueNames(agentId).outboxDlq);
  }

  /**
   * A message typed into the dashboard's chat box, for the agent's main session. Its answer
   * comes back to the chat box only, even if a Telegram user writes to the same session meanwhile.
   */
  async chatMessage(agentId: string, text: string): Promise<string> {
    const sessionKey = mainSessionKey(agentId);
    const id = `local.${agentId}.${randomUUID()}`;
    const chat: ChannelTarget = { channel: 'local', chatId: agentId };
    // The native commands, as in a private Telegram chat: /status, /whoami, /help and /stop
    // answered by the control plane, /new, /reset, /model and /think by the runtime.
    const command = parseCommand(text, undefined);
    if (command?.kind === 'plane') {
      this.chat.add(agentId, 'user', text);
      const plane = {
        name: command.name,
        id,
        agentId,
        sessionKey,
        chat,
        chatKind: 'direct' as const,
        senderId: undefined,
        senderName: 'the dashboard',
        dedupeTtlMs: CHAT_COMMAND_DEDUPE_MS,
      };
      await answerPlaneCommand(plane, this.plane.telegramWebhookDeps());
      return id;
    }
    // The dashboard chat shows the answer streamed as a private Telegram chat would (a command's answer is not streamed).
    const stream = command ? undefined : streamRequestFor(this.config, undefined, 'direct');
    await this.queueChatMessage(
      agentId,
      id,
      { text, ...(stream ? { stream } : {}), ...(command?.kind === 'runtime' ? { command: command.command } : {}) },
      () => this.chat.add(agentId, 'user', text),
    );
    return id;
  }

  /**
   * A press of one of the agent's buttons in the dashboard's chat box: what a Telegram
   * callback_query becomes (buttonPressText with the button's data, `callback` carrying it),
   * into the chat box's session, streamed like typed text. The press names a button the agent
   * put under its own line in this chat (by line and position); its data is read from there,
   * so a forged press cannot hand the agent words its buttons never offered.
   */
  async chatPress(agentId: string, press: { seq: number; row: number; column: number }): Promise<string> {
    const button = this.chat.button(agentId, press.seq, press.row, press.column);
    if (!button) throw new ClawfleetError('BODY_INVALID', `line ${press.seq} of this chat has no button at row ${press.row}, column ${press.column}`);
    const id = `local.${agentId}.${randomUUID()}`;
    const stream = streamRequestFor(this.config, undefined, 'direct');
    await this.queueChatMessage(agentId, id, { text: buttonPressText(button.data), callback: { data: button.data }, ...(stream ? { stream } : {}) }, () =>
      this.chat.add(agentId, 'user', `🔘 ${button.text}`),
    );
    return id;
  }

  /**
   * A file dropped into the dashboard's chat box (#16), with an optional caption: kept under
   * the agent's own in/ prefix as a Telegram attachment is, and queued as a message naming it,
   * of the kind Telegram's inbound path gives the same bytes (a video is a video, not a document).
   */
  async chatFile(agentId: string, file: { name: string; mimeType: string; bytes: Uint8Array }, caption = ''): Promise<string> {
    if (!this.media) throw new ClawfleetError('ROUTE_UNKNOWN', 'this fleet keeps no media, so the chat box takes no files');
    const id = `local.${agentId}.${randomUUID()}`;
    const key = inboundMediaKey(agentId, id, file.name);
    await this.media.put(key, file.bytes, file.mimeType);
    const media = { kind: attachmentKindOf(file.mimeType), key, mimeType: file.mimeType, size: file.bytes.byteLength, fileName: file.name.slice(0, 255) };
    await this.queueChatMessage(agentId, id, { text: caption, media: [media] }, () =>
      this.chat.add(agentId, 'user', caption, { key, name: file.name, mimeType: file.mimeType, size: file.bytes.byteLength }),
    );
    return id;
  }

  /**
   * What every chat box message does: its origin is the chat box (so its answer comes back
   * there only), the main session's last route becomes the chat box, the message is queued,
   * `show` puts the user's line in the chat (only once queued: a send refused, say by a full
   * disk, leaves no line that nobody answers), and the agent is woken.
   */
  private async queueChatMessage(
    agentId: string,
    id: string,
    fields: Pick<MessageEnvelope, 'text'> & Partial<Pick<MessageEnvelope, 'stream' | 'command' | 'media' | 'callback'>>,
    show: () => void,
  ): Promise<void> {
    const sessionKey = mainSessionKey(agentId);
    const now = this.clock.now();
    const chat: ChannelTarget = { channel: 'local', chatId: agentId };
    // Budgets (#31): over its cap the agent is not given the message (a runtime command asks no
    // model and goes through); the chat box shows the line and the note that answers it.
    const refusal = fields.command ? undefined : await budgetRefusal(this.config, agentId, () => this.spend, now);
    if (refusal) {
      show();
      await this.chat.sendText(chat, refusal.text);
      this.log.info('chat message not queued: the agent is over its budget', { agentId, envelopeId: id, period: refusal.reached.period });
      return;
    }
    await this.origins.put(newOrigin({ id, agentId, sessionKey, target: chat, createdAt: now }));
    await this.sessions.put({ sessionKey, agentId, target: chat, updatedAt: now });
    await this.queues.send({ v: PROTOCOL_VERSION, kind: 'message', id, agentId, sessionKey, ts: now, from: { channel: 'local' }, ...fields });
    show();
    if (await this.wake(agentId, 'message')) await this.chat.sendTyping(chat);
  }

  /**
   * A trigger an operator fires now (`clawfleet cron run`): the same dispatch as a schedule's
   * firing (the session and the answer's origin recorded, the agent woken), under a run id of its own.
   */
  runTrigger(trigger: CronTrigger): Promise<DispatchOutcome> {
    return dispatchTrigger(trigger, this.clock.now(), this.plane.cronDispatchDeps(), { id: randomUUID() });
  }

  /**
   * Work was queued for the agent: as the webhook core does, count it as activity and wake
   * the agent if it sleeps. Never fails the caller: the health loop wakes an agent with a
   * waiting message anyway. True if this call woke it.
   */
  private async wake(agentId: string, reason: string): Promise<boolean> {
    if (!this.lifecycle) return false;
    try {
      await this.registry.recordActivity(agentId, this.clock.now());
      return await wakeIfAsleep(agentId, this.lifecycle, reason);
    } catch (err) {
      this.log.warn('agent not woken now; the health loop will', { agentId, ...errorFields(err) });
      return false;
    }
  }

  /** POST /hooks/agent, /hooks/wake, /hooks/<mapping>: λ hooks' core. */
  hook(req: HookRequest): Promise<HttpResult> {
    return handleHook(req, this.plane.hooksDeps());
  }

  /** The token hook callers present: config.hooks.tokenSecret in the local secret clawfleet/<fleet>/control/hooks. */
  hooksToken(): Promise<string> {
    return this.plane.hooksToken();
  }

  /** What λ cron-dispatch's core needs; local/cron-loop.ts fires schedules with it. */
  get cronDispatch(): CronDispatchDeps {
    return this.plane.cronDispatchDeps();
  }

  /** DASHBOARD_TOKEN from the local secrets file, if the owner set one (else the kept token of local/dashboard-token.ts). */
  dashboardToken(): Promise<string | undefined> {
    return this.plane.dashboardSecret(DASHBOARD_TOKEN_NAME);
  }

  /** The account's bot token, or undefined while the secrets file has none (its account is not polled). */
  botToken(accountId: string): Promise<string | undefined> {
    return this.telegram.token(accountId);
  }

  /** An update from the account's long polling (or a test's POST): λ telegram-webhook's core. */
  telegramUpdate(accountId: string, secretToken: string | undefined, body: string): Promise<HttpResult> {
    return handleTelegramWebhook({ accountId, secretToken, body }, this.plane.telegramWebhookDeps());
  }

  /**
   * What a runtime's outbox call does: `outbox`, and on Telegram's 429 the same again after
   * its retry_after, as λ outbox hides the record that long (the delivery ledger skips parts
   * already sent). Failing the call instead would hold the message, and the chat's later
   * ones, for the redelivery delay (the visibility timeout, 60 s), whatever Telegram asked.
   * `runtimeGone` aborts the wait when the runtime that asked has gone.
   */
  async outboxFromRuntime(agentId: string, body: string, runtimeGone?: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.outbox(agentId, body);
      } catch (err) {
        if (!(err instanceof RetryLaterError) || attempt >= LOCAL_MAX_RECEIVE_COUNT || err.seconds > MAX_RETRY_AFTER_HOLD_SECONDS) throw err;
        this.log.warn('telegram asked to slow down; sending again after its retry_after', { agentId, retryAfterSeconds: err.seconds, attempt });
        try {
          await sleep(err.seconds * 1000, undefined, runtimeGone ? { signal: runtimeGone } : {});
        } catch {
          // The runtime is gone: its message is redelivered to the next one, which sends the reply again.
          this.log.warn('runtime gone while its reply waited for telegram; it is sent on redelivery', { agentId });
          return;
        }
      }
    }
  }

  /**
   * A runtime's call on its own spend ledger (#31), `agentId` known from its token: its caps are
   * the config's and the time is this process's, whatever the runtime would say.
   */
  async runtimeSpend(
    agentId: string,
    call:
      | { op: 'reserve'; callId: string; micros: number; holdMs: number }
      | { op: 'settle'; callId: string; month: string; micros: number }
      | { op: 'month'; month: string },
  ): Promise<unknown> {
    const caps = agentCaps(this.config, agentId);
    if (!caps) throw new ClawfleetError('ROUTE_UNKNOWN', `agent "${agentId}" has no budget, so it keeps no spend ledger`);
    const at = this.clock.now();
    if (call.op === 'reserve')
      return { outcome: await this.spendLedger.reserve(agentId, { callId: call.callId, micros: call.micros, holdMs: call.holdMs, at, caps }) };
    if (call.op === 'settle') return { settled: await this.spendLedger.settle(agentId, { callId: call.callId, month: call.month, micros: call.micros, at }) };
    return { month: await this.spendLedger.month(agentId, call.month) };
  }

  /** An envelope a runtime put on its outbox; `agentId` is known from the runtime's own token. */
  async outbox(agentId: string, body: string): Promise<void> {
    try {
      await processOutboxRecord({ source: outboxQueueName(this.config.fleet, agentId), body, messageId: randomUUID() }, this.plane.outboxDeps());
    } catch (err) {
      // An expression this scheduler cannot evaluate (EventBridge would refuse it too):
      // refused like any other request, never retried into success.
      if (!(err instanceof ClawfleetError && err.code === 'SCHEDULE_INVALID')) throw err;
      this.log.warn('outbox envelope rejected', { agentId, code: err.code, reason: err.message, metric: 'OutboxRejected' });
      await this.dlq(agentId).put(body, `${err.code}: ${err.message}`);
    }
  }
}
