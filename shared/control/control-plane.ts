// The control plane composed from its ports: one wiring for every Lambda and for local mode.
// Each process hands in factories for the ports it has (functions/control-plane.ts on AWS,
// local/sqlite-control-plane.ts locally); a port is built when a core's deps first ask for it, so a
// handler builds only the adapters, and SDK clients, its own core calls.
import { dashboardSecretName, hooksSecretName } from '../config/names.ts';
import type { FleetConfig } from '../config/schema.ts';
import { ClawfleetError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type {
  AlertRates,
  QueueStats,
  AgentCompute,
  AgentMetrics,
  AgentQueues,
  AgentRegistry,
  ChannelSender,
  ChannelTarget,
  Clock,
  CronScheduler,
  DeadLetters,
  DelayedRetry,
  DeliveryLedger,
  InboundDedupe,
  InboundOrigins,
  MediaStore,
  PairingStore,
  QueueDepths,
  ReactionRates,
  RelayRates,
  SecretStore,
  SentMessages,
  SessionRegistry,
  SpendCounts,
  TelegramBots,
} from '../ports.ts';
import type { SpendAlarm } from '../budget/budget.ts';
import type { CronDispatchDeps } from './cron-dispatch.ts';
import type { HooksDeps } from './hooks.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import type { OutboxDeps } from './outbox.ts';
import type { OutboxBatchDeps } from './outbox-batch.ts';
import type { WorkspaceSyncLog } from '../workspace/sync-log.ts';
import type { TelegramWebhookDeps } from './telegram-webhook-deps.ts';

/** Everything the control plane's cores use from the outside world. */
export interface ControlPorts {
  queues: AgentQueues;
  dedupe: InboundDedupe;
  sessions: SessionRegistry;
  origins: InboundOrigins;
  ledger: DeliveryLedger;
  pairings: PairingStore;
  registry: AgentRegistry;
  metrics: AgentMetrics;
  depths: QueueDepths;
  /** The dashboard's and the queue chart's figures: each agent's queue, DLQ and outbox DLQ. */
  queueStats: QueueStats;
  relayRates: RelayRates;
  /** The bot's messages, whose reactions reach the agent that sent them (#31). */
  sentMessages: SentMessages | undefined;
  /** The users' reactions counted per chat (#31); without both, reactions reach no agent. */
  reactionRates: ReactionRates | undefined;
  /** Operator alerts counted per alarm and for the fleet (operator-alerts.ts). */
  alertRates: AlertRates;
  /** The control plane's own secrets (clawfleet/<fleet>/control/*), never an agent's. */
  secrets: SecretStore;
  telegram: TelegramBots;
  /** The DLQ of an agent's outbox, where its refused envelopes go with their reason. */
  outboxDeadLetters: (agentId: string | undefined) => DeadLetters;
  /** Hands a received outbox record back for a retry no sooner than the channel asked. */
  delayedRetry: DelayedRetry;
  /** Starts and stops runtimes; without one nothing is woken or hibernated. */
  compute: AgentCompute | undefined;
  /** Agents' own cron jobs; without one their cron requests are refused. */
  scheduler: CronScheduler | undefined;
  /** The local dashboard's chat box: the `local` channel. */
  localChat: ChannelSender | undefined;
  /** Each agent's last workspace push or pull (`clawfleet workspace`), for the dashboard. */
  workspaceSyncLog: WorkspaceSyncLog;
  /** Where attachments and agents' files are kept (#16); without one, attachments arrive as a note and file envelopes are refused. */
  media: MediaStore | undefined;
  /** Why an agent runs its offline stand-in model (local mode without a model key), for /status; absent where none can. */
  offlineModels: ((agentId: string) => string | undefined) | undefined;
  /** Budgets (#31): each agent's spend as the control plane counts it. */
  spendCounts: SpendCounts;
  /** Tells the operator a spend alarm (80 %, 100 % of a cap): the operator channel (spend-alarm.ts), where the process wires it; absent, alarms are logged. */
  spendAlerts: ((agentId: string, alarm: SpendAlarm) => Promise<void>) | undefined;
}

/** How a process builds each port it has; called at most once, on first use. */
export type PortFactories = { [K in keyof ControlPorts]?: (plane: ControlPlane) => ControlPorts[K] };

/** Ports a process may lack by design (a capability it does not offer), unlike a port a core needs. */
const OPTIONAL_PORTS = new Set<keyof ControlPorts>([
  'compute',
  'scheduler',
  'localChat',
  'media',
  'offlineModels',
  'spendAlerts',
  'sentMessages',
  'reactionRates',
]);

export interface ControlPlaneBasics {
  config: FleetConfig;
  clock: Clock;
  log: Logger;
  /** Names the process in errors about its wiring: "telegram-webhook", "local". */
  component: string;
  newId(): string;
  newPairingCode(): string;
  /** Where the control plane's secrets are kept, said in an error about a missing one. */
  secretsWhere: string;
}

export class ControlPlane {
  readonly config: FleetConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly newId: () => string;
  readonly newPairingCode: () => string;
  private readonly built = new Map<keyof ControlPorts, unknown>();
  private lifecycleDeps: LifecycleDeps | undefined | null = null;

  constructor(
    private readonly basics: ControlPlaneBasics,
    private readonly factories: PortFactories,
  ) {
    ({ config: this.config, clock: this.clock, log: this.log, newId: this.newId, newPairingCode: this.newPairingCode } = basics);
  }

  /** The port, built on first use; PORT_NOT_WIRED if this process was given no factory for a port a core needs. */
  port<K extends keyof ControlPorts>(name: K): ControlPorts[K] {
    if (!this.built.has(name)) {
      const make = this.factories[name];
      if (!make && !OPTIONAL_PORTS.has(name)) {
        throw new ClawfleetError('PORT_NOT_WIRED', `the ${this.basics.component} control plane was given no "${name}" port`);
      }
      this.built.set(name, make?.(this));
    }
    return this.built.get(name) as ControlPorts[K];
  }

  get queues() {
    return this.port('queues');
  }
  get dedupe() {
    return this.port('dedupe');
  }
  get sessions() {
    return this.port('sessions');
  }
  get origins() {
    return this.port('origins');
  }
  get ledger() {
    return this.port('ledger');
  }
  get pairings() {
    return this.port('pairings');
  }
  get registry() {
    return this.port('registry');
  }
  get metrics() {
    return this.port('metrics');
  }
  get queueStats() {
    return this.port('queueStats');
  }
  get workspaceSyncLog() {
    return this.port('workspaceSyncLog');
  }
  get secrets() {
    return this.port('secrets');
  }
  get telegram() {
    return this.port('telegram');
  }
  /** Built when first read: only where an agent has a budget. */
  get spendCounts() {
    return this.port('spendCounts');
  }
  get secretsWhere() {
    return this.basics.secretsWhere;
  }

  /** Wake and hibernate; undefined where this process starts no runtimes. */
  get lifecycle(): LifecycleDeps | undefined {
    if (this.lifecycleDeps === null) {
      const compute = this.port('compute');
      this.lifecycleDeps = compute ? { registry: this.registry, compute, depths: this.port('depths'), clock: this.clock, log: this.log } : undefined;
    }
    return this.lifecycleDeps;
  }

  /** A port this process may lack by design (compute, scheduler, the local chat), where a core cannot do without it. */
  required<K extends keyof ControlPorts>(name: K): NonNullable<ControlPorts[K]> {
    const port = this.port(name);
    if (port === undefined) throw new ClawfleetError('PORT_NOT_WIRED', `the ${this.basics.component} control plane was given no "${name}" port`);
    return port as NonNullable<ControlPorts[K]>;
  }

  /** Wake and hibernate where a core cannot do without them (λ health, the dashboard's buttons). */
  requireLifecycle(): LifecycleDeps {
    this.required('compute');
    return this.lifecycle!;
  }

  /** The sender for a chat: a Telegram account's bot, or the local dashboard's chat box. */
  async channel(target: ChannelTarget): Promise<ChannelSender> {
    if (target.channel === 'telegram') return this.telegram.sender(target.accountId);
    const chat = this.port('localChat');
    if (!chat) throw new ClawfleetError('CHANNEL_UNSUPPORTED', `the ${this.basics.component} control plane cannot deliver to ${target.channel} chats`);
    return chat;
  }

  /** The token HTTP hook callers present: config.hooks.tokenSecret in clawfleet/<fleet>/control/hooks. */
  async hooksToken(): Promise<string> {
    const { hooks, fleet } = this.config;
    if (!hooks) throw new ClawfleetError('HOOKS_DISABLED', 'this fleet has no "hooks" in its config');
    const secretId = hooksSecretName(fleet);
    const token = (await this.secrets.get(secretId))[hooks.tokenSecret];
    if (!token) throw new ClawfleetError('SECRET_MISSING', `no "${hooks.tokenSecret}" under "${secretId}" ${this.basics.secretsWhere}`);
    return token;
  }

  /** A value of the dashboard's secret (clawfleet/<fleet>/control/dashboard); undefined while it or the secret is not set. */
  async dashboardSecret(name: string): Promise<string | undefined> {
    try {
      return (await this.secrets.get(dashboardSecretName(this.config.fleet)))[name];
    } catch (err) {
      if (err instanceof ClawfleetError && err.code === 'SECRET_NOT_FOUND') return undefined;
      throw err;
    }
  }

  /** λ telegram-webhook's core, and local mode's long polling. */
  telegramWebhookDeps(): TelegramWebhookDeps {
    const telegram = this.telegram;
    return {
      config: this.config,
      webhookSecret: (accountId) => telegram.webhookSecret(accountId),
      queues: this.queues,
      dedupe: this.dedupe,
      sessions: this.sessions,
      origins: this.origins,
      pairings: this.pairings,
      botIdentity: (accountId) => telegram.botIdentity(accountId),
      channel: (target) => this.channel(target),
      newPairingCode: this.newPairingCode,
      ...this.lifecycleField(),
      statusView: () => ({ registry: this.registry, depths: this.port('depths'), offlineReason: this.port('offlineModels'), spend: () => this.spendCounts }),
      ...this.inboundMediaField(),
      spend: () => this.spendCounts,
      ...this.reactionsField(),
      clock: this.clock,
      log: this.log,
    };
  }

  /** The users' reactions (#31), where this process keeps the bot's messages and counts reactions. */
  private reactionsField(): Pick<TelegramWebhookDeps, 'reactions'> {
    const sent = this.port('sentMessages');
    const rates = this.port('reactionRates');
    return sent && rates ? { reactions: { sent, rates } } : {};
  }

  /** The webhook's media path (#16), where this process has a media store and its bots can fetch files. */
  private inboundMediaField(): Pick<TelegramWebhookDeps, 'media'> {
    const store = this.port('media');
    const telegram = this.telegram;
    if (!store || !telegram.fetchFile) return {};
    return { media: { store, fetchFile: (accountId, fileId, maxBytes) => telegram.fetchFile!(accountId, fileId, maxBytes) } };
  }

  /** λ hooks' core. */
  hooksDeps(): HooksDeps {
    // Every hook checks the token: the secrets port is built now, with the others.
    this.port('secrets');
    return {
      config: this.config,
      hooksToken: () => this.hooksToken(),
      queues: this.queues,
      dedupe: this.dedupe,
      sessions: this.sessions,
      origins: this.origins,
      ...this.lifecycleField(),
      spend: () => this.spendCounts,
      newId: this.newId,
      clock: this.clock,
      log: this.log,
    };
  }

  /** λ outbox's core: delivery, relay, the agent's registry and metrics, its own cron jobs. */
  outboxDeps(): OutboxDeps {
    const scheduler = this.port('scheduler');
    // Replies go out through the bots (or the local chat box): built now, with the others.
    this.port('telegram');
    return {
      config: this.config,
      origins: this.origins,
      sessions: this.sessions,
      ledger: this.ledger,
      deadLetters: this.port('outboxDeadLetters'),
      channel: (target) => this.channel(target),
      registry: this.registry,
      metrics: this.metrics,
      relay: { queues: this.queues, rates: this.port('relayRates'), lifecycle: this.lifecycle, spend: () => this.spendCounts },
      spend: { counts: () => this.spendCounts, alertSpend: this.port('spendAlerts') },
      ...(scheduler ? { scheduler } : {}),
      ...(this.port('media') ? { media: this.port('media') } : {}),
      ...(this.port('sentMessages') ? { sentMessages: this.port('sentMessages') } : {}),
      clock: this.clock,
      log: this.log,
    };
  }

  /** λ outbox's batches: the outbox core, and a retry no sooner than the channel asked. */
  outboxBatchDeps(): OutboxBatchDeps {
    return { ...this.outboxDeps(), delayedRetry: this.port('delayedRetry') };
  }

  /** λ cron-dispatch's core, and every other trigger an operator fires (`clawfleet cron run`). */
  cronDispatchDeps(): CronDispatchDeps {
    return {
      config: this.config,
      queues: this.queues,
      sessions: this.sessions,
      origins: this.origins,
      lifecycle: this.lifecycle,
      spend: () => this.spendCounts,
      clock: this.clock,
      log: this.log,
    };
  }

  /** What the queue chart's sampling needs (λ health, λ dashboard). */
  queueSampleDeps() {
    return { config: this.config, queues: this.queueStats, metrics: this.metrics, clock: this.clock, log: this.log };
  }

  private lifecycleField(): { lifecycle?: LifecycleDeps } {
    const lifecycle = this.lifecycle;
    return lifecycle ? { lifecycle } : {};
  }
}
