// Which clawfleet session an OpenClaw session key becomes. Both spell keys OpenClaw's way
// (shared/routing/session-key.ts), so the Telegram shapes map one to one once the agent id
// (and an account id) is the clawfleet one, and OpenClaw's `direct` peer kind (older
// releases wrote `dm`) is clawfleet's `dm`. Sessions of channels clawfleet does not have,
// threads, sub-agents and ACP sessions map to nothing: their transcripts are kept as files.
import { sessionScope } from '../../shared/routing/session-key.ts';
import { sanitizeId } from './convert.ts';

/** What an OpenClaw key becomes: a clawfleet key, or why it has none. */
export type MappedKey = { key: string } | { none: string };

/** A session key is an SQS FIFO group too: at most 128 printable ASCII characters, no spaces. */
const GROUP_SAFE = /^[!-~]{1,128}$/;
const PEER = /^[^:\s]+$/;

/**
 * `rawAgentId` is the agent's id in OpenClaw (its store's and keys' spelling), `agentId`
 * its clawfleet id; `accountIds` maps OpenClaw Telegram account ids to clawfleet ones.
 */
export function mapSessionKey(openclawKey: string, rawAgentId: string, agentId: string, accountIds: ReadonlyMap<string, string> = new Map()): MappedKey {
  const scope = sessionScope(agentId);
  const done = (key: string): MappedKey => (GROUP_SAFE.test(key) ? { key } : { none: 'the clawfleet key would be longer than 128 characters or hold spaces' });
  const lower = openclawKey.toLowerCase();
  // Cron and hook sessions are not agent-scoped in OpenClaw; they live in their agent's store.
  const cron = /^cron:(.+)$/.exec(openclawKey);
  if (cron) return done(`${scope}cron:${sanitizeId(cron[1]!)}`);
  const hook = /^hook:([^\s]+)$/.exec(openclawKey);
  if (hook) return done(`${scope}hook:${hook[1]}`);
  const parts = openclawKey.split(':');
  if (parts[0]?.toLowerCase() !== 'agent' || parts.length < 3) return { none: 'not a key clawfleet routes to' };
  if (parts[1]!.toLowerCase() !== rawAgentId.toLowerCase()) return { none: `a session of agent "${parts[1]}", found in "${rawAgentId}"'s store` };
  const rest = parts.slice(2);
  if (lower.includes(':thread:')) return { none: 'a thread session (clawfleet keeps Telegram topics, not threads)' };
  const [first, second, third, fourth, ...more] = rest;
  if (rest.length === 1 && first === 'main') return done(`${scope}main`);
  if (rest.length === 2 && (first === 'direct' || first === 'dm') && PEER.test(second!)) return done(`${scope}dm:${second}`);
  if (first === 'cron' && rest.length === 2) return done(`${scope}cron:${sanitizeId(second!)}`);
  if (first === 'hook' && rest.length >= 2) return done(`${scope}${rest.join(':')}`);
  if (first !== 'telegram')
    return { none: first === 'subagent' || first === 'acp' ? `a ${first} session` : `a "${first}" session (clawfleet has Telegram only)` };
  if (rest.length === 3 && (second === 'direct' || second === 'dm') && PEER.test(third!)) return done(`${scope}telegram:dm:${third}`);
  if (rest.length === 4 && (third === 'direct' || third === 'dm') && PEER.test(fourth!)) {
    const account = accountIds.get(second!) ?? sanitizeId(second!);
    return done(`${scope}telegram:${account}:dm:${fourth}`);
  }
  if (second === 'group' && third && PEER.test(third)) {
    if (rest.length === 3) return done(`${scope}telegram:group:${third}`);
    if (rest.length === 5 && fourth === 'topic' && /^\d+$/.test(more[0]!)) return done(`${scope}telegram:group:${third}:topic:${more[0]}`);
  }
  return { none: 'a Telegram session shape clawfleet does not route to' };
}
