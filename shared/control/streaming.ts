// Whether and how fast an answer is streamed to a chat (OpenClaw's `streaming`): the control
// plane decides and tells the runtime in the message envelope, so the runtime never needs the
// channel's config. Private chats get about a draft a second (sendMessageDraft is made for it);
// groups get an edited preview message, slower, since every edit counts against the group's limit.
import type { FleetConfig } from '../config/schema.ts';
import type { StreamRequest } from '../protocol/envelopes.ts';

export const DRAFT_INTERVAL_MS = { direct: 1_000, group: 3_000 } as const;

/** OpenClaw's default is partial. */
export function streamingMode(config: FleetConfig, accountId: string): 'off' | 'partial' {
  const telegram = config.channels.telegram;
  return telegram?.accounts[accountId]?.streaming ?? telegram?.streaming ?? 'partial';
}

export function streamRequestFor(config: FleetConfig, accountId: string, chatKind: 'direct' | 'group'): StreamRequest | undefined {
  if (streamingMode(config, accountId) === 'off') return undefined;
  return { mode: 'partial', minIntervalMs: DRAFT_INTERVAL_MS[chatKind] };
}
