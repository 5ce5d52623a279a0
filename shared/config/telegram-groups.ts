// What the config says of one Telegram group, and of one forum topic in it, as OpenClaw reads
// `channels.telegram.groups`: the group's entry (or "*"), under it the topic's entry (or the
// group's topics."*"); a topic's requireMention and allowFrom win over the group's, and its
// agentId is its own (never inherited from the group). Pure.
import type { ConfigIssue } from '../errors.ts';
import type { FleetConfig } from './schema.ts';

type Groups = NonNullable<NonNullable<FleetConfig['channels']['telegram']>['groups']>;
type GroupEntry = Groups[string];
type TopicEntry = NonNullable<GroupEntry['topics']>[string];

/** A forum's General topic: Telegram sends its messages without a thread id, OpenClaw names it 1. */
export const GENERAL_TOPIC_ID = 1;

export interface GroupSettings {
  /** Where the group's settings come from: its own entry, or "*". */
  entry: string;
  requireMention: boolean;
  /** Who may talk to the bot here; undefined: anyone in the group. */
  allowFrom: readonly string[] | undefined;
  /** The topic's own agent (`topics.<id>.agentId`, else `topics."*".agentId`); undefined outside a topic or where none is set. */
  topicAgentId: string | undefined;
}

/** The group's settings in `topicId` (a forum topic) or in the group as a whole; undefined when the group is not enabled. */
export function groupSettings(config: FleetConfig, chatId: string, topicId: number | undefined): GroupSettings | undefined {
  const groups = config.channels.telegram?.groups;
  const entry = groups?.[chatId] !== undefined ? chatId : groups?.['*'] !== undefined ? '*' : undefined;
  if (entry === undefined) return undefined;
  const group = groups![entry]!;
  const topic = topicEntry(group, topicId);
  return {
    entry,
    requireMention: topic?.requireMention ?? group.requireMention ?? true,
    allowFrom: topic?.allowFrom ?? group.allowFrom,
    topicAgentId: topic?.agentId,
  };
}

/** The topic's entry merged over the group's topics."*", key by key; undefined outside a topic. */
function topicEntry(group: GroupEntry, topicId: number | undefined): TopicEntry | undefined {
  if (topicId === undefined || !group.topics) return undefined;
  const own = group.topics[String(topicId)];
  const every = group.topics['*'];
  if (!own && !every) return undefined;
  return {
    agentId: own?.agentId ?? every?.agentId,
    requireMention: own?.requireMention ?? every?.requireMention,
    allowFrom: own?.allowFrom ?? every?.allowFrom,
  };
}

/**
 * A topic's agent must be one of the fleet's; a topic given an agent both by a binding and by
 * its `agentId` must be given the same one (the binding would silently win otherwise).
 */
export function topicAgentIssues(config: FleetConfig, agentIds: ReadonlySet<string>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [chatId, group] of Object.entries(config.channels.telegram?.groups ?? {})) {
    for (const [topicId, topic] of Object.entries(group.topics ?? {})) {
      if (topic.agentId === undefined) continue;
      const at = `channels.telegram.groups.${chatId}.topics.${topicId}.agentId`;
      if (!agentIds.has(topic.agentId)) issues.push({ path: at, message: `no agent "${topic.agentId}"` });
      const bound = config.bindings.findIndex(
        (b) => b.match.peer?.kind === 'group' && b.match.peer.id === chatId && String(b.match.peer.topic) === topicId && b.agentId !== topic.agentId,
      );
      if (bound >= 0)
        issues.push({
          path: at,
          message: `topic ${topicId} is bound to agent "${config.bindings[bound]!.agentId}" by bindings[${bound}], which wins over "${topic.agentId}" here: keep one of the two`,
        });
    }
  }
  return issues;
}
