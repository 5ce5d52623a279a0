// Which agent gets a message: bindings in OpenClaw's order of precedence — an exact
// peer match, then the account, then the channel, then the fleet's default agent.
import type { Binding, FleetConfig } from '../config/schema.ts';
import { defaultAgentId } from '../config/resolve.ts';
import { sessionKeyFor, type Peer } from './session-key.ts';

export type MatchedBy = 'peer' | 'account' | 'channel' | 'default';

export interface Route {
  agentId: string;
  sessionKey: string;
  matchedBy: MatchedBy;
}

export function route(config: FleetConfig, peer: Peer): Route {
  const bindings = config.bindings.filter((b) => b.match.channel === peer.channel);
  const accountOk = (b: Binding) => b.match.accountId === undefined || b.match.accountId === peer.accountId;

  const byPeer = bindings.find((b) => b.match.peer && accountOk(b) && b.match.peer.kind === peer.kind && b.match.peer.id === peer.id);
  const byAccount = bindings.find((b) => !b.match.peer && b.match.accountId === peer.accountId);
  const byChannel = bindings.find((b) => !b.match.peer && b.match.accountId === undefined);

  const [binding, matchedBy]: [Binding | undefined, MatchedBy] = byPeer
    ? [byPeer, 'peer']
    : byAccount
      ? [byAccount, 'account']
      : byChannel
        ? [byChannel, 'channel']
        : [undefined, 'default'];
  const agentId = binding?.agentId ?? defaultAgentId(config);
  return { agentId, matchedBy, sessionKey: sessionKeyFor(agentId, peer, config.session?.dmScope ?? 'main') };
}
