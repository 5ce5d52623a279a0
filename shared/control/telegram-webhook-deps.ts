// What the Telegram webhook's steps share: the request, the answer, and the ports it runs on.
import type { FleetConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import type {
  AgentQueues,
  ChannelSender,
  ChannelTarget,
  Clock,
  InboundDedupe,
  InboundOrigins,
  PairingStore,
  ReactionRates,
  SentMessages,
  SessionRegistry,
  SpendCounts,
} from '../ports.ts';
import type { BotIdentity } from '../telegram/mention.ts';
import type { PlaneCommandDeps } from './command-answers.ts';
import type { InboundMediaDeps } from './inbound-media.ts';
import type { LifecycleDeps } from './lifecycle.ts';

/** Telegram retries an unacknowledged update for up to 24 h; remember twice that. */
export const DEDUPE_TTL_MS = 48 * 3600 * 1000;

export interface WebhookRequest {
  accountId: string;
  secretToken: string | undefined;
  body: string;
}

export interface HttpResult {
  status: number;
  body: Record<string, unknown>;
}

/** Where an update stands in the logs: its account and Telegram's id for it (a type, so it spreads into log fields). */
export type UpdateContext = { accountId: string; updateId: number };

/** Telegram retries what is not acknowledged: the answer for every passing failure after authentication. */
export const unavailable = (): HttpResult => ({ status: 503, body: { error: 'temporarily unavailable' } });

/** The bot's messages and the per-chat count: where reactions can reach an agent at all (reaction-updates.ts). */
export interface ReactionDeps {
  sent: SentMessages;
  rates: ReactionRates;
}

export interface TelegramWebhookDeps {
  config: FleetConfig;
  /** The webhook secret token for an account (derived from its bot token). */
  webhookSecret(accountId: string): Promise<string>;
  queues: AgentQueues;
  dedupe: InboundDedupe;
  sessions: SessionRegistry;
  /** Each queued message's origin: its answer goes to this sender's chat and no other. */
  origins: InboundOrigins;
  pairings: PairingStore;
  /** Who the bot of an account is, to tell whether a group message mentions it. */
  botIdentity(accountId: string): Promise<BotIdentity>;
  /** For answering a sender directly (pairing codes) without involving an agent. */
  channel(target: ChannelTarget): Promise<ChannelSender>;
  newPairingCode(): string;
  /** Wakes a hibernating agent; absent where agents never sleep. */
  lifecycle?: LifecycleDeps;
  /** What /status reads, built only when someone asks (the registry and the queue depth), so other updates pay nothing for it. */
  statusView?: PlaneCommandDeps['statusView'];
  /** Where attachments are kept for the agent (#16); absent where there is no media store, and attachments then arrive as a note. */
  media?: InboundMediaDeps;
  /** Budgets (#31): the spend count a metered agent's messages are checked against; read only for an agent with a budget. */
  spend?: () => SpendCounts;
  /** The bot's messages and the per-chat count, for the users' reactions (#31); absent, reactions reach no agent. */
  reactions?: ReactionDeps;
  clock: Clock;
  log: Logger;
}
