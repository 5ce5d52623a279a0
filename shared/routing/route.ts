// Which agent gets a message: bindings in OpenClaw's order of precedence — an exact
// peer match, then the account, then the channel, then the fleet's default agent. In a forum
// topic the topic comes first: a binding for the topic, then the topic's own agent
// (`channels.telegram.groups.<id>.topics.<topicId>.agentId`), then the group's peer binding.
import type { Binding, FleetConfig } from '../config/schema.ts';
import { defaultAgentId } from '../config/resolve.ts';
import { groupSettings } from '../config/telegram-groups.ts';
import { sessionKeyFor, type Peer } from './session-key.ts';

export type MatchedBy = 'topic' | 'peer' | 'account' | 'channel' | 'default';

export interface Route {
  agentId: string;
  sessionKey: string;
  matchedBy: MatchedBy;
}

export function route(config: FleetConfig, peer: Peer): Route {
  const bindings = config.bindings.filter((b) => b.match.channel === peer.channel);
  const accountOk = (b: Binding) => b.match.accountId === undefined || b.match.accountId === peer.accountId;
  const samePeer = (b: Binding) => b.match.peer !== undefined && accountOk(b) && b.match.peer.kind === peer.kind && b.match.peer.id === peer.id;

  // A topic binding matches its topic only; a group's binding (no topic) matches all of the group.
  const byTopic = peer.topicId === undefined ? undefined : bindings.find((b) => samePeer(b) && b.match.peer!.topic === peer.topicId);
  const topicAgent = peer.kind === 'group' && peer.topicId !== undefined ? groupSettings(config, peer.id, peer.topicId)?.topicAgentId : undefined;
  const byPeer = bindings.find((b) => samePeer(b) && b.match.peer!.topic === undefined);
  const byAccount = bindings.find((b) => !b.match.peer && b.match.accountId === peer.accountId);
  const byChannel = bindings.find((b) => !b.match.peer && b.match.accountId === undefined);

  const [agentId, matchedBy]: [string, MatchedBy] = byTopic
    ? [byTopic.agentId, 'topic']
    : topicAgent
      ? [topicAgent, 'topic']
      : byPeer
        ? [byPeer.agentId, 'peer']
        : byAccount
          ? [byAccount.agentId, 'account']
          : byChannel
            ? [byChannel.agentId, 'channel']
            : [defaultAgentId(config), 'default'];
  return { agentId, matchedBy, sessionKey: sessionKeyFor(agentId, peer, config.session?.dmScope ?? 'main') };
}
