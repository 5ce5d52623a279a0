// Native slash commands, as OpenClaw's users know them. Which side answers each: the control
// plane answers what it knows itself (/status, /whoami, /help) without waking a sleeping
// agent, forwards /stop as a cancel in the agent's control group (so it overtakes the turn it
// stops), and queues /new, /reset, /model, /think and /voice to the runtime, which owns the transcript. A command
// addressed to another bot (`/status@otherbot`) is not ours; an unknown one goes to the model.
import { spendStatusText, type SpendView } from './budget-gate.ts';
import type { FleetConfig } from '../config/schema.ts';
import { resolveAgent } from '../config/resolve.ts';
import { DEFAULT_RUNTIME_KIND } from '../config/runtime-kinds.ts';
import { RUNTIME_COMMANDS, type RuntimeCommand } from '../protocol/envelopes.ts';
import type { AgentRecord, RecordedSessionStats, SessionRecord } from '../ports.ts';

/** The command menu registered with setMyCommands, in the order Telegram shows it. */
export const COMMAND_MENU = [
  { command: 'new', description: 'Start a fresh session (the old one is kept)' },
  { command: 'reset', description: 'Same as /new' },
  { command: 'stop', description: 'Stop the reply being written' },
  { command: 'status', description: 'Agent, model, session and queue' },
  { command: 'model', description: 'Show or switch the model for this session' },
  { command: 'think', description: 'Thinking level: off, minimal, low, medium, high' },
  { command: 'voice', description: 'Spoken replies in this chat: on, off or default' },
  { command: 'whoami', description: 'Your id, this chat and its session' },
  { command: 'help', description: 'What the commands do' },
] as const;

export type PlaneCommand = 'status' | 'whoami' | 'help' | 'stop';
export type ParsedCommand =
  | { kind: 'plane'; name: PlaneCommand; args: string }
  | { kind: 'runtime'; command: RuntimeCommand }
  /** Addressed to another bot in the chat: not for us at all. */
  | { kind: 'other-bot'; bot: string };

const PLANE: readonly string[] = ['status', 'whoami', 'help', 'stop'];
const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/;

/** A native command at the start of `text`, or undefined (plain text, or a command we do not know: the model gets it). */
export function parseCommand(text: string, botUsername: string | undefined): ParsedCommand | undefined {
  const m = COMMAND.exec(text.trim());
  if (!m) return undefined;
  const [, rawName = '', bot, rest = ''] = m;
  if (bot && (!botUsername || bot.toLowerCase() !== botUsername.toLowerCase())) return { kind: 'other-bot', bot };
  const name = rawName.toLowerCase();
  const args = rest.trim().slice(0, 4_096);
  if (PLANE.includes(name)) return { kind: 'plane', name: name as PlaneCommand, args };
  if ((RUNTIME_COMMANDS as readonly string[]).includes(name)) return { kind: 'runtime', command: { name: name as RuntimeCommand['name'], args } };
  return undefined;
}

/** Whether an account answers native commands (OpenClaw's `commands.native`; on unless turned off). */
export function nativeCommandsOn(config: FleetConfig, accountId: string): boolean {
  const telegram = config.channels.telegram;
  return telegram?.accounts[accountId]?.commands?.native ?? telegram?.commands?.native ?? true;
}

export function helpText(): string {
  return ['Commands:', ...COMMAND_MENU.map((c) => `/${c.command} — ${c.description}`), 'Anything else goes to the agent.'].join('\n');
}

export interface StatusFacts {
  config: FleetConfig;
  agentId: string;
  sessionKey: string;
  record: AgentRecord | undefined;
  session: SessionRecord | undefined;
  /** Messages waiting for the agent; undefined when it could not be read. */
  queueDepth: number | undefined;
  now: number;
  /** Why the agent answers with its offline stand-in rather than its model (local mode without a key). */
  offline?: string | undefined;
  /** Budgets (#31): its spend against its caps, as the control plane counted it; absent for an agent without a budget. */
  spend?: SpendView | undefined;
}

/** /status from what the control plane knows: answered without waking the agent. */
export function statusText(f: StatusFacts): string {
  const agent = resolveAgent(f.config, f.agentId);
  const state = f.record?.state ?? 'asleep';
  const configured = agent.model ? [agent.model.primary, ...agent.model.fallbacks].join(' → ') : '(none configured)';
  const ago = (at: number | undefined) => (at === undefined ? 'never' : `${Math.max(0, Math.round((f.now - at) / 1000))} s ago`);
  const stats = f.session?.stats;
  // The session's /model choice leads: it is what answers in this chat.
  const model = stats?.modelChosen ? `${stats.model} (chosen with /model; configured: ${configured})` : configured;
  return [
    `🤖 ${agent.name ?? agent.id} (${agent.id}) — ${state === 'awake' ? 'awake' : state === 'waking' || state === 'restarting' ? 'waking' : state === 'unhealthy' ? 'unhealthy' : 'asleep'}`,
    // Naming only the configured model would be a lie while the stand-in answers.
    `Model: ${model}${f.offline ? ` (offline: ${f.offline}; the agent answers with a stand-in, not the model)` : ''}`,
    `Session: ${f.sessionKey} (last message ${ago(f.session?.updatedAt)})`,
    ...sessionLines(stats, ago, (agent.runtime?.kind ?? DEFAULT_RUNTIME_KIND) !== DEFAULT_RUNTIME_KIND),
    `Queue: ${f.queueDepth === undefined ? 'unknown' : `${f.queueDepth} waiting`}`,
    ...(f.spend ? [`Spend: ${spendStatusText(f.spend, f.now)}`] : []),
    `Last activity: ${ago(f.record?.lastActivityAt)}`,
  ].join('\n');
}

/** The session's length and context use as the runtime last reported them (after its latest turn). */
function sessionLines(stats: RecordedSessionStats | undefined, ago: (at: number) => string, foreignRuntime: boolean): string[] {
  // An OpenClaw runtime keeps its sessions inside its gateway, which does not say their length.
  if (!stats && foreignRuntime) return ['Session length: not reported by this runtime kind'];
  if (!stats) return ['Session length: not reported yet (the agent reports it after a turn)'];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const share = stats.contextTokens / stats.contextWindow;
  const percent = stats.contextTokens > 0 && share < 0.005 ? '<1%' : `${Math.round(share * 100)}%`;
  return [
    `Session length: ${plural(stats.turns, 'turn')}, ${plural(stats.messages, 'message')} in context (as of ${ago(stats.at)})`,
    `Context: ${stats.estimated ? '~' : ''}${tokenCount(stats.contextTokens)} / ${tokenCount(stats.contextWindow)} tokens (${percent})`,
  ];
}

/** 850, 12.3k, 200k, 1.5M: how token counts are usually said. */
export function tokenCount(n: number): string {
  const short = (value: number, unit: string) => `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))}${unit}`;
  if (n >= 1_000_000) return short(n / 1_000_000, 'M');
  if (n >= 1_000) return short(n / 1_000, 'k');
  return String(n);
}

export function whoamiText(f: {
  senderId: string | undefined;
  senderName: string | undefined;
  chatId: string;
  chatKind: 'direct' | 'group';
  topicId?: number | undefined;
  agentId: string;
  sessionKey: string;
}): string {
  return [
    `You: ${f.senderName ?? 'unknown'} (Telegram id ${f.senderId ?? 'unknown'})`,
    `Chat: ${f.chatId} (${f.chatKind === 'direct' ? 'private' : 'group'}${f.topicId !== undefined ? `, topic ${f.topicId}` : ''})`,
    `Agent: ${f.agentId}, session ${f.sessionKey}`,
  ].join('\n');
}

export const NOTHING_TO_STOP = 'Nothing is running.';
