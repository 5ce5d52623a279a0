// In-memory adapters of the control plane's state ports, for unit tests of the core.
import type {
  AlertRates,
  ClaimResult,
  DeadLetters,
  DeliveryLedger,
  InboundDedupe,
  InboundOrigin,
  InboundOrigins,
  PairingRecord,
  PairingStore,
  ReactionRates,
  RelayRates,
  SecretStore,
  SentMessageRecord,
  SentMessages,
  StatusFrom,
  StatusState,
  RecordedSessionStats,
  SessionRecord,
  SessionRegistry,
} from '../../ports.ts';
import { ClawfleetError } from '../../errors.ts';

export class InMemoryInboundDedupe implements InboundDedupe {
  readonly keys = new Map<string, number>();
  constructor(private readonly now: () => number = Date.now) {}
  async seen(key: string) {
    const until = this.keys.get(key);
    return until !== undefined && until > this.now();
  }
  async remember(key: string, expiresAt: number) {
    this.keys.set(key, expiresAt);
  }
}

export class InMemorySessionRegistry implements SessionRegistry {
  readonly records = new Map<string, SessionRecord>();
  async get(sessionKey: string) {
    return this.records.get(sessionKey);
  }
  async put(record: Omit<SessionRecord, 'stats'>) {
    const existing = this.records.get(record.sessionKey);
    if (existing && existing.agentId !== record.agentId) throw new Error(`session ${record.sessionKey} belongs to ${existing.agentId}`);
    // The stats are recordStats' alone, as in the real stores.
    const next: SessionRecord = { ...record };
    delete next.stats;
    if (existing?.stats) next.stats = existing.stats;
    this.records.set(record.sessionKey, next);
  }
  async recordStats(sessionKey: string, agentId: string, stats: RecordedSessionStats) {
    const existing = this.records.get(sessionKey);
    if (!existing || existing.agentId !== agentId || (existing.stats && existing.stats.at > stats.at)) return false;
    this.records.set(sessionKey, { ...existing, stats });
    return true;
  }
  async list(agentId: string, limit: number) {
    return [...this.records.values()]
      .filter((r) => r.agentId === agentId)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .slice(0, limit);
  }
}

export class InMemoryDeliveryLedger implements DeliveryLedger {
  readonly entries = new Map<string, { state: 'sending' | 'delivered'; leaseUntil: number }>();
  async claim(key: string, now: number, leaseMs: number): Promise<ClaimResult> {
    const e = this.entries.get(key);
    if (e?.state === 'delivered') return 'delivered';
    if (e && e.leaseUntil >= now) return 'in-flight';
    this.entries.set(key, { state: 'sending', leaseUntil: now + leaseMs });
    return 'claimed';
  }
  async complete(key: string) {
    this.entries.set(key, { state: 'delivered', leaseUntil: Infinity });
  }
  async release(key: string) {
    if (this.entries.get(key)?.state === 'sending') this.entries.delete(key);
  }
}

export class InMemorySecretStore implements SecretStore {
  constructor(readonly secrets: Record<string, Record<string, string>> = {}) {}
  async get(secretId: string) {
    const s = this.secrets[secretId];
    if (!s) throw new ClawfleetError('SECRET_NOT_FOUND', `cannot read secret "${secretId}": ResourceNotFoundException`);
    return s;
  }
}

export class InMemoryDeadLetters implements DeadLetters {
  readonly letters: { body: string; reason: string; groupId?: string | undefined }[] = [];
  async put(body: string, reason: string, groupId?: string) {
    this.letters.push({ body, reason, groupId });
  }
}

export class InMemoryPairingStore implements PairingStore {
  readonly records = new Map<string, PairingRecord>();
  private key = (accountId: string, peerId: string) => `${accountId}:${peerId}`;
  async get(accountId: string, peerId: string) {
    return this.records.get(this.key(accountId, peerId));
  }
  async createPending(record: PairingRecord, opts: { maxPerAccount?: number } = {}): Promise<PairingRecord | 'full'> {
    const existing = this.records.get(this.key(record.accountId, record.peerId));
    if (existing && (existing.status === 'approved' || existing.expiresAt > record.createdAt)) return existing;
    const waiting = [...this.records.values()].filter(
      (r) => r.accountId === record.accountId && r.status === 'pending' && r.expiresAt > record.createdAt,
    ).length;
    if (opts.maxPerAccount !== undefined && waiting >= opts.maxPerAccount) return 'full';
    this.records.set(this.key(record.accountId, record.peerId), record);
    return record;
  }
  async approve(code: string, now: number) {
    const found = [...this.records.values()].find((r) => r.code === code && r.status === 'pending' && r.expiresAt > now);
    if (found) found.status = 'approved';
    return found;
  }
  async listPending(now: number) {
    return [...this.records.values()].filter((r) => r.status === 'pending' && r.expiresAt > now);
  }
}

export class InMemoryInboundOrigins implements InboundOrigins {
  readonly records = new Map<string, InboundOrigin & { relays?: number; statusState?: StatusState }>();
  constructor(private readonly now: () => number = Date.now) {}
  async get(id: string) {
    const found = this.records.get(id);
    if (!found || found.expiresAt <= this.now()) return undefined;
    const { relays: _r, statusState: _s, ...origin } = found;
    return origin;
  }
  async put(origin: InboundOrigin) {
    const kept = this.records.get(origin.id);
    this.records.set(origin.id, { ...origin, relays: kept?.relays, statusState: kept?.statusState });
  }
  async advanceStatus(id: string, to: StatusState, from: readonly StatusFrom[]) {
    const found = this.records.get(id);
    if (!found || found.expiresAt <= this.now() || !from.includes(found.statusState ?? 'unset')) return false;
    found.statusState = to;
    return true;
  }
  async takeRelay(id: string, max: number) {
    const found = this.records.get(id);
    if (!found || found.expiresAt <= this.now() || (found.relays ?? 0) >= max) return false;
    found.relays = (found.relays ?? 0) + 1;
    return true;
  }
}

export class InMemorySentMessages implements SentMessages {
  readonly records = new Map<string, SentMessageRecord>();
  constructor(private readonly now: () => number = Date.now) {}
  async put(record: SentMessageRecord) {
    this.records.set(`${record.accountId}:${record.chatId}:${record.messageId}`, { ...record });
  }
  async get(accountId: string, chatId: string, messageId: number) {
    const found = this.records.get(`${accountId}:${chatId}:${messageId}`);
    return found && found.expiresAt > this.now() ? { ...found } : undefined;
  }
}

export class InMemoryReactionRates implements ReactionRates {
  readonly counts = new Map<string, number>();
  async take(chat: string, windowStart: number, _windowMs: number, max: number) {
    return takeWindowSlot(this.counts, `${chat}@${windowStart}`, max) !== undefined;
  }
}

export class InMemoryRelayRates implements RelayRates {
  readonly counts = new Map<string, number>();
  async take(fromAgentId: string, toAgentId: string, windowStart: number, _windowMs: number, max: number) {
    return takeWindowSlot(this.counts, `${fromAgentId}>${toAgentId}@${windowStart}`, max) !== undefined;
  }
}

export class InMemoryAlertRates implements AlertRates {
  readonly counts = new Map<string, number>();
  async take(key: string, windowStart: number, _windowMs: number, max: number) {
    return takeWindowSlot(this.counts, `${key}@${windowStart}`, max);
  }
}

/** One slot of a rate limit's window (as dynamo-window-counter.ts takes it): the window's count with it, or undefined once it holds `max`. */
function takeWindowSlot(counts: Map<string, number>, key: string, max: number): number | undefined {
  const n = counts.get(key) ?? 0;
  if (n >= max) return undefined;
  counts.set(key, n + 1);
  return n + 1;
}
