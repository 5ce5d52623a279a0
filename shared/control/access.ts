// Who may talk to an agent, as OpenClaw decides it. Direct messages follow the account's
// dmPolicy (pairing | allowlist | open | disabled) and allowFrom; groups must be enabled
// in `groups` (by chat id or "*") and, unless told otherwise, must mention the bot; in a forum
// topic the topic's own requireMention and allowFrom (`groups.<id>.topics.<topicId>`) win.
// Pairing: an unknown sender gets a code, and talks to the agent once the owner approves it;
// at most MAX_PENDING_PAIRINGS senders per account wait at once, as OpenClaw caps them.
import * as z from '../zod.ts';
import type { FleetConfig } from '../config/schema.ts';
import { groupSettings } from '../config/telegram-groups.ts';
import type { PairingRecord, PairingStore } from '../ports.ts';

/** A stored or transmitted PairingRecord (shared/ports.ts), checked on the way in. */
export const PairingRecordSchema = z.object({
  channel: z.literal('telegram'),
  accountId: z.string(),
  peerId: z.string(),
  displayName: z.optional(z.string()),
  code: z.string(),
  status: z.enum(['pending', 'approved']),
  createdAt: z.number(),
  expiresAt: z.number(),
});

/** Pairing codes expire after an hour, as OpenClaw's do. */
const PAIRING_TTL_MS = 3600 * 1000;

/**
 * Pending pairing requests per bot account, as OpenClaw's cap: a stranger flooding the bot
 * from many accounts fills the owner's approval list with at most this many, and every
 * sender beyond it is ignored (no code, no message) until one lapses or is approved.
 */
export const MAX_PENDING_PAIRINGS = 3;

export type AccessDecision =
  | { kind: 'allow' }
  /** Not yet paired: tell the sender their code (fresh = newly issued). */
  | { kind: 'pair'; code: string; fresh: boolean }
  | { kind: 'ignore'; reason: string };

export interface AccessRequest {
  accountId: string;
  /** The chat, and in a forum the topic the message is in (1 for General). */
  chat: { kind: 'direct' | 'group'; id: string; topicId?: number | undefined };
  senderId: string | undefined;
  senderName?: string | undefined;
  /** The bot was @mentioned, replied to, or addressed with /command@bot. */
  mentioned: boolean;
  /** false: an unknown sender under `pairing` is ignored rather than given a code (a reaction, #31, asks for nothing). */
  mayPair?: boolean;
}

export interface AccessDeps {
  config: FleetConfig;
  pairings: PairingStore;
  now: number;
  newCode(): string;
}

/** allowFrom entries may be written "123", "tg:123" or "telegram:123"; "*" allows anyone. */
function listed(allowFrom: readonly string[] | undefined, senderId: string | undefined): boolean {
  if (!allowFrom) return false;
  return allowFrom.some((entry) => entry === '*' || (senderId !== undefined && entry.replace(/^(tg|telegram):/, '') === senderId));
}

export async function decideAccess(req: AccessRequest, deps: AccessDeps): Promise<AccessDecision> {
  const telegram = deps.config.channels.telegram!;
  if (req.chat.kind === 'group') {
    const group = groupSettings(deps.config, req.chat.id, req.chat.topicId);
    if (!group) return { kind: 'ignore', reason: 'group not enabled in channels.telegram.groups' };
    if (group.allowFrom && !listed(group.allowFrom, req.senderId)) return { kind: 'ignore', reason: 'sender not in the group (or topic) allowFrom' };
    if (group.requireMention && !req.mentioned) return { kind: 'ignore', reason: 'bot not mentioned' };
    return { kind: 'allow' };
  }

  const account = telegram.accounts[req.accountId]!;
  const policy = account.dmPolicy ?? telegram.dmPolicy;
  if (policy === 'disabled') return { kind: 'ignore', reason: 'direct messages disabled' };
  if (policy === 'open' || listed(account.allowFrom ?? telegram.allowFrom, req.senderId)) return { kind: 'allow' };
  if (policy === 'allowlist' || req.senderId === undefined) return { kind: 'ignore', reason: 'sender not in allowFrom' };

  const existing = await deps.pairings.get(req.accountId, req.senderId);
  if (existing?.status === 'approved') return { kind: 'allow' };
  if (req.mayPair === false) return { kind: 'ignore', reason: 'sender not paired' };
  if (existing && existing.expiresAt > deps.now) return { kind: 'pair', code: existing.code, fresh: false };
  const record: PairingRecord = {
    channel: 'telegram',
    accountId: req.accountId,
    peerId: req.senderId,
    displayName: req.senderName,
    code: deps.newCode(),
    status: 'pending',
    createdAt: deps.now,
    expiresAt: deps.now + PAIRING_TTL_MS,
  };
  const stored = await deps.pairings.createPending(record, { maxPerAccount: MAX_PENDING_PAIRINGS });
  if (stored === 'full')
    return {
      kind: 'ignore',
      reason: `pairing requests for this account are at their cap (${MAX_PENDING_PAIRINGS} pending); the sender is told nothing until one lapses or is approved`,
    };
  return { kind: 'pair', code: stored.code, fresh: stored.code === record.code };
}

/** Eight characters without look-alikes (0/O, 1/I/L), easy to read out and type. */
export function pairingCode(random: (n: number) => Uint8Array): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  return Array.from(random(8), (b) => alphabet[b % alphabet.length]).join('');
}

export function pairingText(code: string, fresh: boolean): string {
  return [
    fresh ? 'Hi! This bot only talks to people its owner has approved.' : 'Still waiting for the owner to approve you.',
    `Your pairing code: ${code}`,
    `The owner approves it with: clawfleet pairing approve ${code}`,
  ].join('\n');
}
