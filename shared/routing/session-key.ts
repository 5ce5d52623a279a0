// Session keys as OpenClaw forms them: which conversation a message belongs to, and so
// which transcript the runtime continues and which chat the control plane answers in.

export type DmScope = 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer';

export interface Peer {
  channel: 'telegram';
  accountId: string;
  kind: 'direct' | 'group';
  /** Telegram chat id. */
  id: string;
  /** Forum topic (message_thread_id) inside a group. */
  topicId?: number | undefined;
}

/**
 * What every session key of an agent starts with: the control plane reads the owner from
 * it (agentOfSessionKey), and a hook caller's own key is scoped under it.
 */
export const sessionScope = (agentId: string) => `agent:${agentId}:`;

/** Whether a key is already scoped to an agent (`agent:…`), rather than one to be scoped under the agent that takes it. */
export const isScopedSessionKey = (key: string) => key.startsWith('agent:');

/**
 * The agent's main session: direct messages under dmScope "main", heartbeats and wake
 * hooks, cron jobs that run in the main session, messages relayed from other agents.
 */
export const mainSessionKey = (agentId: string) => `${sessionScope(agentId)}main`;

/** A cron job's session: the main one, with its history, or (isolated) the job's own, as OpenClaw's `cron:<jobId>`. */
export const cronSessionKey = (agentId: string, jobId: string, sessionTarget: 'main' | 'isolated') =>
  sessionTarget === 'isolated' ? `${sessionScope(agentId)}cron:${jobId}` : mainSessionKey(agentId);

/** A hook's own session when the caller names none: `agent:<id>:hook:<slug>`. */
export const hookSessionKeyOf = (agentId: string, slug: string) => `${sessionScope(agentId)}hook:${slug}`;

/** The FIFO group of an envelope that belongs to no session (a control message): its own lane per agent. */
export const controlGroupOf = (agentId: string) => `${sessionScope(agentId)}control`;

export function sessionKeyFor(agentId: string, peer: Peer, dmScope: DmScope = 'main'): string {
  const scope = sessionScope(agentId);
  if (peer.kind === 'group') {
    const group = `${scope}${peer.channel}:group:${peer.id}`;
    return peer.topicId === undefined ? group : `${group}:topic:${peer.topicId}`;
  }
  switch (dmScope) {
    case 'main':
      return mainSessionKey(agentId);
    case 'per-peer':
      return `${scope}dm:${peer.id}`;
    case 'per-channel-peer':
      return `${scope}${peer.channel}:dm:${peer.id}`;
    case 'per-account-channel-peer':
      return `${scope}${peer.channel}:${peer.accountId}:dm:${peer.id}`;
  }
}

/** The agent a session key belongs to. */
export function agentOfSessionKey(sessionKey: string): string | undefined {
  const match = /^agent:([a-z][a-z0-9-]*):/.exec(sessionKey);
  return match?.[1];
}
