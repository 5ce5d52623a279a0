// OpenClaw's reaction and topic settings as clawfleet has them (#31): `messages.statusReactions` (and
// an account's own) as `statusReactions`, `reactionNotifications` as itself, a group's `topics` with
// each topic's agentId, requireMention and allowFrom. What clawfleet does not have — other states'
// emoji, timing, an emoji Telegram would refuse, other topic keys — is reported, never dropped unsaid.
import { isReactionEmoji, reactionSpelling } from '../../shared/telegram/reaction-emoji.ts';
import { isObj, type Obj, type Reporter } from './convert-types.ts';

const STATES = ['queued', 'thinking', 'tool', 'done', 'error'] as const;

/** `statusReactions { enabled, emojis }` for clawfleet; undefined when nothing carries over. */
export function statusReactionsOf(raw: unknown, at: string, r: Reporter): Obj | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw)) {
    r.skip(at, `${JSON.stringify(raw)} is not a value OpenClaw or clawfleet reads here`);
    return undefined;
  }
  const out: Obj = {};
  if (typeof raw.enabled === 'boolean') out.enabled = raw.enabled;
  else if (raw.enabled !== undefined) r.skip(`${at}.enabled`, `${JSON.stringify(raw.enabled)} is not true or false`);
  const emojis: Obj = {};
  for (const [state, emoji] of Object.entries(isObj(raw.emojis) ? raw.emojis : {})) {
    const path = `${at}.emojis.${state}`;
    if (!(STATES as readonly string[]).includes(state)) r.skip(path, `clawfleet's states are ${STATES.join(', ')} (one tool state, no stalls)`);
    else if (typeof emoji !== 'string' || !isReactionEmoji(emoji)) r.skip(path, `${JSON.stringify(emoji)} is not one of the reaction emoji Telegram takes`);
    else emojis[state] = reactionSpelling(emoji);
  }
  if (Object.keys(emojis).length) out.emojis = emojis;
  for (const k of Object.keys(raw))
    if (k !== 'enabled' && k !== 'emojis')
      r.skip(`${at}.${k}`, k === 'timing' ? 'not supported: clawfleet paces reactions per chat itself' : 'no clawfleet equivalent');
  return Object.keys(out).length ? out : undefined;
}

/** `reactionNotifications` off | own | all, as it was. */
export function reactionNotificationsOf(raw: unknown, at: string, r: Reporter): 'off' | 'own' | 'all' | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'off' || raw === 'own' || raw === 'all') return raw;
  r.skip(at, `${JSON.stringify(raw)} is not off, own or all`);
  return undefined;
}

/** A group's forum topics: each topic's agent (by its converted id), requireMention and allowFrom. */
export function topicsOf(raw: unknown, at: string, agentOf: (raw: unknown) => string | undefined, r: Reporter): Obj | undefined {
  if (!isObj(raw)) {
    if (raw !== undefined) r.skip(at, `${JSON.stringify(raw)} is not a value OpenClaw or clawfleet reads here`);
    return undefined;
  }
  const out: Obj = {};
  for (const [id, t] of Object.entries(raw)) {
    const path = `${at}.${id}`;
    if (!/^(\*|[1-9][0-9]{0,9})$/.test(id) || !isObj(t)) {
      r.skip(path, 'not a topic: its key must be a topic id (1 is General) or "*"');
      continue;
    }
    const topic: Obj = {};
    if (t.agentId !== undefined) {
      const agentId = agentOf(t.agentId);
      if (agentId) topic.agentId = agentId;
      else r.skip(`${path}.agentId`, `agent "${String(t.agentId)}" is not in the converted agents`);
    }
    if (typeof t.requireMention === 'boolean') topic.requireMention = t.requireMention;
    if (Array.isArray(t.allowFrom)) topic.allowFrom = t.allowFrom.map(String);
    for (const k of Object.keys(t))
      if (!['agentId', 'requireMention', 'allowFrom'].includes(k))
        r.skip(`${path}.${k}`, 'a topic has its agentId, requireMention and allowFrom in clawfleet, nothing else');
    out[id] = topic;
  }
  return Object.keys(out).length ? out : undefined;
}
