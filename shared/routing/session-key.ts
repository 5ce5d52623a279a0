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

export function sessionKeyFor(agentId: string, peer: Peer, dmScope: DmScope = 'main'): string {
  if (peer.kind === 'group') {
    const group = `agent:${agentId}:${peer.channel}:group:${peer.id}`;
    return peer.topicId === undefined ? group : `${group}:topic:${peer.topicId}`;
  }
  switch (dmScope) {
    case 'main':
      return `agent:${agentId}:main`;
    case 'per-peer':
      return `agent:${agentId}:dm:${peer.id}`;
    case 'per-channel-peer':
      return `agent:${agentId}:${peer.channel}:dm:${peer.id}`;
    case 'per-account-channel-peer':
      return `agent:${agentId}:${peer.channel}:${peer.accountId}:dm:${peer.id}`;
  }
}

/** The agent a session key belongs to. */
export function agentOfSessionKey(sessionKey: string): string | undefined {
  const match = /^agent:([a-z][a-z0-9-]*):/.exec(sessionKey);
  return match?.[1];
}
