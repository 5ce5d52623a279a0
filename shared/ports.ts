// The ports of the core: what it needs from the outside world, named by what it means
// to us rather than by the technology behind it. Adapters: adapters/aws (on AWS),
// adapters/memory (unit tests), and the local-mode adapters.
import type { SpendTotals } from './budget/budget.ts';
import type { LedgerMonth, ReserveOutcome, ReserveRequest, SettleRequest } from './budget/ledger.ts';
import type { OutboundFileKind } from './media/media-ref.ts';
import type { InboundEnvelope, OutboundEnvelope, SessionStats } from './protocol/envelopes.ts';
import type { BotIdentity } from './telegram/mention.ts';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The control plane's way into each agent's inbound queue. */
export interface AgentQueues {
  /** Durable once it resolves. FIFO group = session key; dedup id = envelope id. */
  send(envelope: InboundEnvelope): Promise<void>;
}

/** Inbound event keys already admitted, so a retried webhook is queued once. */
export interface InboundDedupe {
  seen(key: string): Promise<boolean>;
  remember(key: string, expiresAt: number): Promise<void>;
}

export type ChannelTarget =
  | {
      channel: 'telegram';
      accountId: string;
      chatId: string;
      /** Forum topic inside a group. */
      threadId?: number | undefined;
    }
  /** The chat box of the local dashboard. */
  | { channel: 'local'; chatId: string };

/** Where a session's replies go: a chat, or nowhere (a hook, a cron job with delivery "none"), in which case they are logged only. */
export type SessionTarget = ChannelTarget | { channel: 'none' };

/** Sends to a user on one channel. Throws PermanentDeliveryError when retrying cannot help, RetryLaterError when told when to retry. */
export interface ChannelSender {
  /** The longest text one message may carry; longer replies are split. */
  readonly maxTextLength: number;
  /** Splits a reply into the parts sent as messages, the same way every time (each part is claimed in the delivery ledger); absent: chunkText by maxTextLength. */
  chunk?(text: string): Promise<string[]>;
  /** Sends one message; says which where the channel numbers its messages (Telegram's message_id), for reactions to it (#31). */
  sendText(target: ChannelTarget, text: string, opts?: SendOptions): Promise<SentMessage | void>;
  sendTyping(target: ChannelTarget): Promise<void>;
  /** Sets (emoji) or clears (undefined) the bot's reaction on a message; absent where a channel has none. */
  react?(target: ChannelTarget, messageId: number, emoji: string | undefined): Promise<void>;
  /**
   * Shows the answer so far (a draft bubble in a private chat, a preview message edited in a
   * group, a growing line in the dashboard chat). Best effort; absent where a channel shows none.
   */
  showDraft?(target: ChannelTarget, draft: DraftView): Promise<DraftShown>;
  /** Turns a group's preview message into the first part of the final reply, in place. */
  finishPreview?(target: ChannelTarget, previewMessageId: number, text: string, opts?: SendOptions): Promise<SentMessage | void>;
  /** Stops a pressed button spinning (Telegram's answerCallbackQuery); absent where a channel has no buttons. */
  answerButtonPress?(queryId: string): Promise<void>;
  /** Sends a file (media, #16); absent on a channel that cannot carry files. */
  sendFile?(target: ChannelTarget, file: OutgoingFile): Promise<void>;
  /**
   * Sends a spoken reply (#31): a voice message (Ogg Opus), with the reply's text as its
   * caption when `captionFits` says it fits one. Throws VoiceRefusedError where the chat takes
   * no voice messages. Absent on a channel without voice messages.
   */
  sendVoice?(target: ChannelTarget, voice: OutgoingVoice, opts?: SendOptions & { caption?: string | undefined }): Promise<SentMessage | void>;
  /** Whether a reply's text fits as one caption (Telegram: 1024 characters as sent), decided from the text alone. */
  captionFits?(text: string): Promise<boolean>;
  /** Removes a status message that the answer does not replace (progress streaming's, #31). Best effort; absent where a channel has none. */
  clearPreview?(target: ChannelTarget, previewMessageId: number): Promise<void>;
}

/** A message a channel sent: its id there (Telegram's message_id). */
export interface SentMessage {
  messageId: number;
}

/** A spoken reply's audio, read from the media store. */
export interface OutgoingVoice {
  bytes: Uint8Array;
  /** How long it plays, shown before it is played. */
  durationSeconds?: number | undefined;
  /** Where the bytes are kept: a channel that shows files by reference (the local chat box) links to it. */
  key: string;
}

export interface SendOptions {
  /** Thread the message to this one (the user's), where the chat still has it. */
  replyToMessageId?: number | undefined;
  /** Inline buttons under the message: rows of {text, data}. */
  buttons?: { text: string; data: string }[][] | undefined;
}

export interface DraftView {
  /** Stable for one answer (Telegram animates changes of one draft id); non-zero. */
  draftId: number;
  text: string;
  /** The preview message this answer already has, which is edited rather than sent again. */
  previewMessageId?: number | undefined;
  /** Thread a new preview message to this one (the user's): the preview becomes the answer's first message (replyToMode). */
  replyToMessageId?: number | undefined;
}

export interface DraftShown {
  /** A preview message sent now (the first draft in a group): the control plane records it with the inbound's origin. */
  previewMessageId?: number | undefined;
}

/** A file on its way to a chat: its bytes, and how the channel should present it. */
export interface OutgoingFile {
  /** One of OUTBOUND_FILE_KINDS (shared/media/media-ref.ts): the Bot API method it goes by. */
  kind: OutboundFileKind;
  fileName: string;
  mimeType: string;
  bytes: Uint8Array;
  caption?: string | undefined;
  /** Where the bytes are kept (the media store): a channel that shows files by reference (the local chat box) links to it. */
  key?: string | undefined;
}

/**
 * Where media bytes are kept between the control plane and a runtime (#16): keys are
 * `agents/<id>/in/…` (written by the control plane) and `agents/<id>/out/…` (written by that
 * agent's runtime); shared/media/media-ref.ts says which key belongs to whom. On AWS one
 * bucket per fleet (the fleet is the adapter's prefix); locally a directory.
 */
export interface MediaStore {
  put(key: string, bytes: Uint8Array, mimeType: string): Promise<void>;
  /** The bytes and type, or undefined when nothing is kept at the key (expired, never written). */
  get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined>;
}

/** The channel refused for good (bot blocked, chat gone): retrying would never succeed. */
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
}

/** The chat takes no voice messages (a Telegram user's privacy setting): the reply goes as text instead. */
export class VoiceRefusedError extends PermanentDeliveryError {
  override name = 'VoiceRefusedError';
}

/** The channel asked us to slow down (Telegram's 429 retry_after): try again after this many seconds, not before. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
  constructor(
    readonly seconds: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The control plane's Telegram bots, one per account; their tokens never leave it. */
export interface TelegramBots {
  /** The secret token Telegram echoes on each of the account's webhook calls. */
  webhookSecret(accountId: string): Promise<string>;
  /** Who the account's bot is, to tell whether a group message mentions it. */
  botIdentity(accountId: string): Promise<BotIdentity>;
  /** Sends through the account's bot. */
  sender(accountId: string): Promise<ChannelSender>;
  /**
   * A file a user sent, fetched through the account's bot (getFile, then its download path)
   * so the token never leaves the control plane (media, #16). Throws MEDIA_TOO_LARGE past
   * `maxBytes`; a TelegramApiError otherwise.
   */
  fetchFile?(accountId: string, fileId: string, maxBytes: number): Promise<{ bytes: Uint8Array; filePath: string }>;
}

/** A queue record received and not done with, as a retry needs it: where it came from and its receipt. */
export interface ReceivedRecord {
  /** The queue it arrived on (ARN or URL). */
  source: string;
  receipt: string;
}

/** Hands a received record back to its queue to be tried again no sooner than `seconds` from now (a channel's retry_after). */
export interface DelayedRetry {
  retryAfter(record: ReceivedRecord, seconds: number): Promise<void>;
}

export interface SessionRecord {
  sessionKey: string;
  agentId: string;
  target: SessionTarget;
  updatedAt: number;
  /** The user blocked the bot: replies are dropped until they write again. */
  blockedAt?: number | undefined;
  /**
   * What the agent's runtime last reported about the session (its length, context use and
   * model) and when (`at`: the reporting envelope's ts), for /status. Kept by `recordStats`
   * alone: a `put` leaves it as it is.
   */
  stats?: RecordedSessionStats | undefined;
}

export type RecordedSessionStats = SessionStats & { at: number };

/** Session key → the agent that owns it and where its replies go. Written only by the control plane. */
export interface SessionRegistry {
  get(sessionKey: string): Promise<SessionRecord | undefined>;
  /** Records the owner, target and blockedAt; a session's stats are kept as they are. */
  put(record: Omit<SessionRecord, 'stats'>): Promise<void>;
  /**
   * Records what `agentId`'s runtime reported about the session, if the session exists, is
   * that agent's, and has no report newer than `stats.at` (a redelivered or late status never
   * overwrites a newer one). Returns whether it was recorded; never creates a session.
   */
  recordStats(sessionKey: string, agentId: string, stats: RecordedSessionStats): Promise<boolean>;
  /** An agent's sessions, most recently updated first (the dashboard's agent page). */
  list(agentId: string, limit: number): Promise<SessionRecord[]>;
}

export type ClaimResult = 'claimed' | 'delivered' | 'in-flight';

/** Per-envelope delivery claims: the outbox sends each reply part at most once. */
export interface DeliveryLedger {
  /** Claims `key` for `leaseMs`; an expired claim (its sender died) can be claimed again. */
  claim(key: string, now: number, leaseMs: number): Promise<ClaimResult>;
  complete(key: string, now: number): Promise<void>;
  release(key: string): Promise<void>;
}

export interface PairingRecord {
  channel: 'telegram';
  accountId: string;
  /** The sender's Telegram user id. */
  peerId: string;
  displayName?: string | undefined;
  code: string;
  status: 'pending' | 'approved';
  createdAt: number;
  /** When a pending code lapses; approved pairings do not expire. */
  expiresAt: number;
}

/** Senders waiting for, or granted, the owner's approval to message a bot. */
export interface PairingStore {
  get(accountId: string, peerId: string): Promise<PairingRecord | undefined>;
  /**
   * Stores a pending pairing; if this sender has a live one already, returns that instead.
   * With `maxPerAccount`, answers 'full' (storing nothing) while the account already has
   * that many live pending pairings of other senders.
   */
  createPending(record: PairingRecord, opts?: { maxPerAccount?: number }): Promise<PairingRecord | 'full'>;
  /** Approves the pending pairing with this code; undefined if there is none (or it lapsed). */
  approve(code: string, now: number): Promise<PairingRecord | undefined>;
  listPending(now: number): Promise<PairingRecord[]>;
}

/**
 * An agent's life as the control plane sees it. asleep: desired count 0. waking: asked
 * to start, no heartbeat yet. awake: heartbeating. restarting: replaced after going
 * silent. unhealthy: did not come up in time. held: asleep and kept so while a workspace
 * task (push, pull) has the workspace to itself: nothing wakes it until the task releases
 * it or its lease lapses (shared/control/workspace-hold.ts).
 */
export type AgentState = 'asleep' | 'waking' | 'awake' | 'restarting' | 'unhealthy' | 'held';

/** An MCP server of a runtime, as its last heartbeat reported it. */
export interface McpServerState {
  state: 'starting' | 'ready' | 'down' | 'stopped';
  tools: number;
  error?: string | undefined;
}

export interface AgentRecord {
  agentId: string;
  state: AgentState;
  stateChangedAt: number;
  lastHeartbeatAt?: number | undefined;
  /** Last time the agent had work: a message queued, a turn started or ended. */
  lastActivityAt?: number | undefined;
  lastError?: string | undefined;
  version?: string | undefined;
  restarts?: number | undefined;
  /** The runtime's MCP servers at its last heartbeat. */
  mcp?: Record<string, McpServerState> | undefined;
  /** What the runtime warned about at its last heartbeat (exec off for want of a sandbox, exec unsandboxed). */
  warnings?: string[] | undefined;
  /** While `held`: the id the workspace transfer that holds it made (shared/control/workspace-hold.ts). */
  holdId?: string | undefined;
}

/** What else must hold for a registry transition (AgentRegistry.transition). */
export interface TransitionGuard {
  activityAt?: number | undefined;
  holdId?: string | undefined;
}

/** The control plane's view of each agent; only the control plane writes it. */
export interface AgentRegistry {
  get(agentId: string): Promise<AgentRecord | undefined>;
  /**
   * Moves an agent to `to` only if it is now in one of `from` ('absent' = no record yet)
   * and, when given, its lastActivityAt is still `activityAt`. False if someone else won.
   * `holdId` (workspace holds): moving to `held` records it; moving from `held` requires the
   * recorded one to be it, so a hold that lapsed and was retaken is not the old holder's to
   * renew or release. Any move out of `held` forgets the id.
   */
  transition(agentId: string, from: (AgentState | 'absent')[], to: AgentState, now: number, guard?: TransitionGuard): Promise<boolean>;
  /** `warnings` replaces the recorded ones when given (an empty list clears them); a runtime that sends none leaves them. */
  recordHeartbeat(agentId: string, now: number, version: string, mcp?: Record<string, McpServerState>, warnings?: string[]): Promise<void>;
  recordActivity(agentId: string, now: number): Promise<void>;
  recordError(agentId: string, now: number, error: string): Promise<void>;
}

/** Starts and stops agents' compute: an ECS service's desired count on AWS, a child process locally. */
export interface AgentCompute {
  setRunning(agentId: string, running: boolean): Promise<void>;
  /** Replaces the agent's task (ECS force new deployment) without touching any other agent. */
  restart(agentId: string): Promise<void>;
}

/** How long one turn spent where: waiting in the queue, in the model, in tools. */
export interface TurnTiming {
  queueWaitMs?: number | undefined;
  modelMs?: number | undefined;
  toolMs?: number | undefined;
}

/** One finished turn, as the outbox learned it from a status envelope. */
export interface TurnEvent {
  agentId: string;
  inboundId: string;
  sessionKey?: string | undefined;
  outcome: 'ended' | 'failed';
  at: number;
  timing?: TurnTiming | undefined;
  error?: string | undefined;
}

/** A time bucket of one agent's activity: finished turns, failed ones, the deepest queue seen. */
export interface ActivityBucket {
  start: number;
  turns: number;
  errors: number;
  maxQueueDepth?: number | undefined;
}

/** Time-bucketed per-agent figures for the dashboard's charts; the outbox writes turns. */
export interface AgentMetrics {
  /** Counted once per inbound id and outcome, so a redelivered status envelope is not counted twice. */
  recordTurn(event: TurnEvent): Promise<void>;
  recordQueueDepth(agentId: string, at: number, depth: number): Promise<void>;
  /** The buckets of [from, to) that hold anything, oldest first. */
  activity(agentId: string, from: number, to: number): Promise<ActivityBucket[]>;
  /** The latest finished turns since `from`, newest first. */
  recentTurns(agentId: string, from: number, limit: number): Promise<TurnEvent[]>;
}

/** Messages waiting for an agent, visible or in flight. */
export interface QueueDepths {
  depth(agentId: string): Promise<number>;
}

/** One agent's queue figures, as the dashboard shows them. */
export interface QueueFigures {
  /** Messages waiting for the agent, visible or in flight. */
  depth: number;
  /** Inbound messages the runtime could not process. */
  dlq: number;
  /** Outbound envelopes the control plane refused. */
  outboxDlq: number;
}

/** Queue figures of one agent: its inbound queue, its DLQ and its outbox's DLQ. */
export interface QueueStats {
  stats(agentId: string): Promise<QueueFigures>;
}

/**
 * Where one inbound envelope came from, recorded by the control plane before it queues the
 * envelope: which agent and session may answer it, and whom the answer reaches. A reply
 * is delivered to the origin of the inbound it names, never to whoever wrote to the
 * session last (DESIGN.md, "A reply answers one message").
 */
export interface InboundOrigin {
  /** The inbound envelope's id. */
  id: string;
  /** The agent whose queue it went to: the only one that may answer it. */
  agentId: string;
  /** The session it was queued into: an answer must name the same session. */
  sessionKey: string;
  /** Whom a reply to it reaches: the person who wrote, the dashboard chat, a cron job's delivery, or nobody. */
  target: SessionTarget;
  createdAt: number;
  /** Epoch ms after which the record is gone (it outlives the queue's retention). */
  expiresAt: number;
  /** Agent-to-agent hops the conversation had reached with this inbound: 0 (or absent) for a person, a hook or a schedule. */
  hops?: number | undefined;
  /** The inbound that started the conversation; absent when this one did. */
  conversationId?: string | undefined;
  /** On a relayed question: the agent that asked, the session its answer goes into and whom that answer is for. */
  askedBy?: { agentId: string; sessionKey: string; target: SessionTarget } | undefined;
  /** The user's message in its chat (Telegram's message_id): what a reply is threaded to and the ack reaction sits on. */
  messageId?: number | undefined;
  /** The ack reaction put on that message, cleared once the reply is sent. */
  ack?: string | undefined;
  /** Status reactions (#31) follow this message's turn (queued → … → done or error) in place of the ack; its state is kept beside the record (advanceStatus). */
  statusReactions?: boolean | undefined;
  /**
   * The preview message a group's streamed answer is shown in; final once the reply replaced it
   * (later drafts are then dropped). `progress`: a status of the work (progress streaming), which
   * the answer does not replace: it is removed once the answer is out.
   */
  preview?: { messageId: number; final?: boolean | undefined; progress?: boolean | undefined } | undefined;
}

/** Inbound envelope id → its origin. Written only by the control plane. */
export interface InboundOrigins {
  get(id: string): Promise<InboundOrigin | undefined>;
  /** Records (or, for a retried event, records again) an inbound envelope's origin. */
  put(origin: InboundOrigin): Promise<void>;
  /**
   * Counts one agent-to-agent relay started from inbound `id`: false, counting nothing,
   * once `max` have been (or the origin is gone). Bounds how often one inbound can be
   * named as the cause of a relay.
   */
  takeRelay(id: string, max: number): Promise<boolean>;
  /**
   * Moves inbound `id`'s status reaction (#31) to `to` if it stands at one of `from` ("unset": none
   * was ever set): false, changing nothing, otherwise or once the origin is gone. One conditional
   * write, so of two racing moves one wins; recording the origin again (put) leaves the state where it is.
   */
  advanceStatus(id: string, to: StatusState, from: readonly StatusFrom[]): Promise<boolean>;
}

/** Where a message's status reaction stands (#31): forward only, done and error final. */
export type StatusState = 'queued' | 'thinking' | 'tool' | 'done' | 'error';
/** A state a move may start from: one of them, or none set yet. */
export type StatusFrom = StatusState | 'unset';

/**
 * A message the bot sent for an agent (#31): whose answer it was, so a user's reaction to it
 * (Telegram names only the chat and the message) reaches that agent, in that session.
 */
export interface SentMessageRecord {
  accountId: string;
  chatId: string;
  messageId: number;
  agentId: string;
  sessionKey: string;
  /** The forum topic it was sent in. */
  threadId?: number | undefined;
  /** Epoch ms after which it is forgotten (personal data, kept as long as an origin). */
  expiresAt: number;
}

/** The bot's messages by chat and id (#31). Written by the outbox as it delivers, read by the webhook. */
export interface SentMessages {
  put(record: SentMessageRecord): Promise<void>;
  get(accountId: string, chatId: string, messageId: number): Promise<SentMessageRecord | undefined>;
}

/** The users' reactions counted per chat in fixed windows (#31): how many reach the agents. */
export interface ReactionRates {
  /** Counts one reaction in `chat` in the window that starts at `windowStart`: false, counting nothing, if it holds `max` already. */
  take(chat: string, windowStart: number, windowMs: number, max: number): Promise<boolean>;
}

/** Agent-to-agent relays counted per ordered pair of agents in fixed windows: the per-pair rate limit. */
export interface RelayRates {
  /**
   * Counts one relay from `fromAgentId` to `toAgentId` in the window that starts at
   * `windowStart` and lasts `windowMs`: false, counting nothing, if it holds `max` already.
   */
  take(fromAgentId: string, toAgentId: string, windowStart: number, windowMs: number, max: number): Promise<boolean>;
}

// ── Budgets (#31) ─────────────────────────────────────────────────────────────

/**
 * What each agent has spent on model calls, as the control plane counts it from the usage its
 * runtime reports on its outbox: what admission, /status, the dashboard and the alarms read.
 * Written only by the control plane.
 */
export interface SpendCounts {
  /**
   * Adds one reported call's cost to the day and month containing `at`, once per `usageId`: a
   * report delivered again counts nothing (`counted: false`). Returns the totals after.
   */
  add(agentId: string, usageId: string, micros: number, at: number): Promise<{ counted: boolean; totals: SpendTotals }>;
  /** The totals of the day and month containing `at` (zero where nothing was counted). */
  totals(agentId: string, at: number): Promise<SpendTotals>;
  /** Records that the alarm `key` (alarmKey) was told, in the month containing `at`; false when it had been already. */
  markAlerted(agentId: string, key: string, at: number): Promise<boolean>;
}

/**
 * The runtime's own spend ledger (shared/budget/ledger.ts): it holds each model call's ceiling
 * before the call and settles it after, so concurrent turns of one agent cannot overspend by more
 * than one call. Each reserve and settle is one atomic step over the agent's month. On AWS the
 * runtime writes its own items directly (IAM: its agent id as the leading key); locally through
 * the local control plane's runtime channel.
 */
export interface SpendLedger {
  reserve(agentId: string, req: ReserveRequest): Promise<ReserveOutcome>;
  /** False when there was no such hold (settled before, or lapsed): nothing is counted twice. */
  settle(agentId: string, req: SettleRequest): Promise<boolean>;
  /** The agent's month as it stands (tests, the dashboard). */
  month(agentId: string, month: string): Promise<LedgerMonth>;
}

/** Operator alerts counted per key (one alarm, or the whole fleet) in fixed windows: their rate limit. */
export interface AlertRates {
  /**
   * Counts one alert under `key` in the window that starts at `windowStart` and lasts
   * `windowMs`: the count with this one, or undefined, counting nothing, if it holds `max` already.
   */
  take(key: string, windowStart: number, windowMs: number, max: number): Promise<number | undefined>;
}

/** One schedule: when, and what to pass to λ cron-dispatch. */
export interface Schedule {
  name: string;
  expression: string;
  timezone?: string | undefined;
  /** The trigger JSON (shared/cron/trigger.ts). */
  input: string;
}

/** The fleet's schedule group: EventBridge Scheduler on AWS, a timer loop locally. */
export interface CronScheduler {
  put(schedule: Schedule): Promise<void>;
  /** False if there was no such schedule. */
  delete(name: string): Promise<boolean>;
  /** Names of the schedules whose name starts with `prefix`. */
  list(prefix: string): Promise<string[]>;
}

/** A named JSON secret: an object of named string values. */
export interface SecretStore {
  get(secretId: string): Promise<Record<string, string>>;
}

/** Where a message that cannot be processed goes, with its reason. Never silently dropped. */
export interface DeadLetters {
  put(body: string, reason: string, groupId?: string): Promise<void>;
}

// ── Runtime side ────────────────────────────────────────────────────────────────

export interface ReceivedMessage {
  body: string;
  /** Opaque handle for extend/delete/release. */
  receipt: string;
  /** How many times this message has been handed out, this time included. */
  receiveCount: number;
}

/** A runtime's own inbound queue. */
export interface Inbox {
  receive(waitSeconds: number, signal?: AbortSignal): Promise<ReceivedMessage[]>;
  /** Keeps the message hidden from other consumers for `seconds` more. */
  extend(receipt: string, seconds: number): Promise<void>;
  delete(receipt: string): Promise<void>;
  /** Makes the message visible again at once, for another consumer. */
  release(receipt: string): Promise<void>;
}

/** A runtime's own outbox; the control plane knows the sender by which outbox it is. */
export interface Outbox {
  send(envelope: OutboundEnvelope): Promise<void>;
}

// ── The account, as the CLI's deploy, destroy and cost see it ─────────────────

/** Whether a cost allocation tag is active in billing; 'unseen' when billing has not seen it on any resource yet. */
export type CostTagStatus = 'active' | 'inactive' | 'unseen';

/** The cost of one month (or the part of it asked for), by the value of the tag grouped by ('' = resources without it). */
export interface TaggedCostPeriod {
  /** ISO dates; `end` is exclusive. */
  start: string;
  end: string;
  /** Not final yet: the month is still open, or billing has not settled it. */
  estimated: boolean;
  byTag: Record<string, number>;
}

/** The bill by tag: Cost Explorer on AWS. */
export interface CostReports {
  tagStatus(keys: string[]): Promise<Record<string, CostTagStatus>>;
  /** Unblended cost per month in [start, end) of the resources whose `filter` tag has that value, grouped by the `groupBy` tag. */
  monthlyCostsByTag(q: { start: string; end: string; filter: { key: string; value: string }; groupBy: string }): Promise<{
    currency: string;
    periods: TaggedCostPeriod[];
  }>;
}

/** The bill cannot be read: Cost Explorer is not enabled, has no data yet, or the caller may not read it. */
export class CostReportsUnavailable extends Error {
  override name = 'CostReportsUnavailable';
  constructor(
    readonly reason: 'not-enabled' | 'no-data' | 'denied',
    message: string,
  ) {
    super(message);
  }
}

/**
 * What the account allows and holds, for the deploy's preflight: read-only. Each call may fail
 * on its own (a service an account or an emulator lacks, a permission the credentials lack);
 * the preflight then says it could not check that quota.
 */
export interface AccountQuotas {
  /** Lambda: the account's concurrent executions, and how many of them no function reserves. */
  lambdaConcurrency(): Promise<{ limit: number; unreserved: number }>;
  /** What these functions reserve now, together (a function that does not exist, or reserves nothing, adds 0). */
  reservedConcurrency(functionNames: string[]): Promise<number>;
  /** A quota's value as Service Quotas states it: applied to the account, else AWS's default. */
  serviceQuota(serviceCode: string, quotaCode: string): Promise<number>;
  /** IAM: the roles in the account, and its quota (account-wide, every region). */
  iamRoles(): Promise<{ used: number; quota: number }>;
  /** CloudFormation: the stacks in this region that count against its quota (every one not deleted). */
  stackCount(): Promise<number>;
  /** EC2: the VPCs and the internet gateways in this region. */
  networkCounts(): Promise<{ vpcs: number; internetGateways: number }>;
}
