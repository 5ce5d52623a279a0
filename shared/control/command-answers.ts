// The native commands the control plane answers itself, from the webhook: /help, /whoami and
// /status straight to the chat (a sleeping agent is not woken to say it is asleep), and /stop
// as a cancel queued in the agent's control group. Each is admitted once, like a message: a
// retried update finds its id remembered and is not answered twice.
import type { FleetConfig } from '../config/schema.ts';
import { PROTOCOL_VERSION } from '../protocol/envelopes.ts';
import type {
  AgentQueues,
  AgentRegistry,
  ChannelSender,
  ChannelTarget,
  Clock,
  InboundDedupe,
  InboundOrigins,
  QueueDepths,
  SessionRegistry,
  SpendCounts,
} from '../ports.ts';
import { spendView } from './budget-gate.ts';
import { helpText, NOTHING_TO_STOP, statusText, whoamiText, type PlaneCommand } from './commands.ts';
import { newOrigin } from './origins.ts';

/** What answering needs: the webhook's own deps fit. */
export interface PlaneCommandDeps {
  config: FleetConfig;
  queues: AgentQueues;
  dedupe: InboundDedupe;
  sessions: SessionRegistry;
  origins: InboundOrigins;
  channel(target: ChannelTarget): Promise<ChannelSender>;
  statusView?: () => {
    registry: AgentRegistry;
    depths: QueueDepths;
    offlineReason?: ((agentId: string) => string | undefined) | undefined;
    /** Budgets (#31): read only for an agent with a budget. */
    spend?: (() => SpendCounts) | undefined;
  };
  clock: Clock;
}

export interface PlaneCommandRequest {
  name: PlaneCommand;
  /** The update's inbound id: the dedupe key, and the id a /stop's cancel carries. */
  id: string;
  agentId: string;
  sessionKey: string;
  chat: ChannelTarget;
  chatKind: 'direct' | 'group';
  senderId: string | undefined;
  senderName: string | undefined;
  /** How long the update's id is remembered (the webhook's dedupe window). */
  dedupeTtlMs: number;
}

/** Throws when the answer could not be given or recorded: the update is then retried. */
export async function answerPlaneCommand(cmd: PlaneCommandRequest, deps: PlaneCommandDeps): Promise<'answered' | 'duplicate'> {
  if (await deps.dedupe.seen(cmd.id)) return 'duplicate';
  const now = deps.clock.now();
  if (cmd.name === 'stop') {
    const asleep = (await deps.statusView?.().registry.get(cmd.agentId))?.state === 'asleep';
    if (asleep) {
      await say(cmd.chat, NOTHING_TO_STOP, deps);
    } else {
      // The runtime answers the /stop itself when nothing was running: it may, as its origin is this chat.
      await deps.origins.put(newOrigin({ id: cmd.id, agentId: cmd.agentId, sessionKey: cmd.sessionKey, target: cmd.chat, createdAt: now }));
      await deps.queues.send({
        v: PROTOCOL_VERSION,
        kind: 'control',
        id: cmd.id,
        agentId: cmd.agentId,
        ts: now,
        action: 'cancel',
        cancelSession: cmd.sessionKey,
      });
    }
  } else {
    await say(cmd.chat, await answerText(cmd, deps, now), deps);
  }
  await deps.dedupe.remember(cmd.id, now + cmd.dedupeTtlMs);
  return 'answered';
}

async function answerText(cmd: PlaneCommandRequest, deps: PlaneCommandDeps, now: number): Promise<string> {
  if (cmd.name === 'help') return helpText();
  if (cmd.name === 'whoami') {
    const chatId = cmd.chat.chatId;
    const topicId = cmd.chat.channel === 'telegram' ? cmd.chat.threadId : undefined;
    return whoamiText({
      senderId: cmd.senderId,
      senderName: cmd.senderName,
      chatId,
      chatKind: cmd.chatKind,
      topicId,
      agentId: cmd.agentId,
      sessionKey: cmd.sessionKey,
    });
  }
  const view = deps.statusView?.();
  const [record, session, queueDepth, spend] = await Promise.all([
    view?.registry.get(cmd.agentId),
    deps.sessions.get(cmd.sessionKey),
    view?.depths.depth(cmd.agentId).catch(() => undefined),
    spendView(deps.config, cmd.agentId, view?.spend, now),
  ]);
  const offline = view?.offlineReason?.(cmd.agentId);
  return statusText({ config: deps.config, agentId: cmd.agentId, sessionKey: cmd.sessionKey, record, session, queueDepth, now, offline, spend });
}

async function say(chat: ChannelTarget, text: string, deps: PlaneCommandDeps): Promise<void> {
  await (await deps.channel(chat)).sendText(chat, text);
}
