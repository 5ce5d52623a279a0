// What the outbox's steps share (outbox.ts and the kinds it hands off: files, the lease):
// the ports it acts through, and how a step refuses an envelope into the sender's DLQ.
import type { FleetConfig } from '../config/schema.ts';
import type { EnvelopeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { OutboundEnvelope } from '../protocol/envelopes.ts';
import type {
  AgentMetrics,
  AgentRegistry,
  ChannelSender,
  ChannelTarget,
  Clock,
  CronScheduler,
  DeadLetters,
  DeliveryLedger,
  InboundOrigins,
  MediaStore,
  SentMessages,
  SessionRegistry,
  SpendCounts,
} from '../ports.ts';
import type { CronRefusalCode } from './cron-requests.ts';
import type { DraftPauses } from './drafts.ts';
import type { OriginCheck } from './origins.ts';
import type { RelayDeps, RelayRefusalCode } from './relay.ts';
import type { SpendCountDeps } from './spend-count.ts';
import type { ReactionPacer } from './status-reactions.ts';

export interface OutboxDeps {
  config: FleetConfig;
  /** Where each inbound came from: replies, typing and relays are checked against it. */
  origins: InboundOrigins;
  /** A session's last direct route, and whether its user blocked the bot. */
  sessions: SessionRegistry;
  ledger: DeliveryLedger;
  /** Dead letters of the sending agent's outbox. */
  deadLetters(agentId: string | undefined): DeadLetters;
  /** The sender for a session's channel target. */
  channel(target: ChannelTarget): Promise<ChannelSender>;
  /** Where heartbeats, activity and errors are recorded; absent where nothing hibernates. */
  registry?: AgentRegistry;
  /** Per-agent turn counts and timings for the dashboard's charts; absent where nothing shows them. */
  metrics?: AgentMetrics;
  /** Agent-to-agent relay; absent where it is not wired, and agent_send is then refused. */
  relay?: Omit<RelayDeps, 'config' | 'origins' | 'clock' | 'log'>;
  /** Where agents' own cron jobs are scheduled; absent where it is not wired, and cron requests are then refused. */
  scheduler?: CronScheduler;
  /** Chats whose drafts are paused after a 429 (default: this process's own). */
  draftPauses?: DraftPauses;
  /** The pace of status reactions per chat (default: this process's own). */
  reactionPacer?: ReactionPacer;
  /** Where agents' files are kept (#16); absent where it is not wired, and file envelopes are then refused. */
  media?: MediaStore;
  /** Budgets (#31): the count usage reports are added to, and the operator's alarms; absent, usage envelopes are refused. */
  spend?: { counts: () => SpendCounts; alertSpend?: SpendCountDeps['alertSpend'] };
  /** The bot's messages, kept so the users' reactions reach the agent that sent them (#31); absent, none are kept. */
  sentMessages?: SentMessages;
  clock: Clock;
  log: Logger;
}

/**
 * Why the outbox refuses an envelope: the DLQ reason starts with it (`ORIGIN_NOT_OWNED: …`),
 * and the log line and metric carry it.
 */
export type OutboxRejectCode =
  | 'UNKNOWN_OUTBOX'
  | EnvelopeError['code']
  | 'NOT_SUPPORTED'
  | 'DELIVERY_REFUSED'
  | Extract<OriginCheck, { ok: false }>['code']
  | RelayRefusalCode
  | CronRefusalCode
  // media (#16): a file from another agent's prefix, over the limit, or not kept.
  | 'MEDIA_NOT_OWNED'
  | 'MEDIA_TOO_LARGE'
  | 'MEDIA_MISSING'
  // Budgets (#31): a usage report for a model the sender has no price for.
  | 'USAGE_MODEL_UNKNOWN';

export type Reject = (code: OutboxRejectCode, reason: string, envelope?: OutboundEnvelope) => Promise<void>;
