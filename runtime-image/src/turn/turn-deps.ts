// What a native turn is given (agent-runtime.ts builds it once per runtime, tests their own):
// the agent's workspace, transcripts, models, tools, outbox and limits.
import type { Logger } from '../../../shared/log.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import type { MediaInputDeps } from '../media/media-input.ts';
import type { ModelClient } from '../model/model.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';
import type { OfferedSkill } from '../../../shared/adapters/fs/skill-discovery.ts';
import type { Speaker } from '../speech/spoken-reply.ts';
import type { AgentTool } from '../tools/tool.ts';
import type { TranscriptStore } from '../session/transcript-store.ts';

export interface TurnLimits {
  turnTimeoutMs: number;
  maxToolRounds: number;
  toolTimeoutMs: number;
  maxToolResultChars: number;
  /** Compact a session when its prompt passes this many (estimated) tokens. */
  compactAtTokens: number;
  keepTurnsOnCompaction: number;
}

export const defaultTurnLimits: TurnLimits = {
  turnTimeoutMs: 10 * 60_000,
  maxToolRounds: 25,
  toolTimeoutMs: 120_000,
  maxToolResultChars: 32_000,
  compactAtTokens: 96_000,
  keepTurnsOnCompaction: 4,
};

export interface TurnDeps {
  agentId: string;
  agentName: string;
  workspace: string;
  transcripts: TranscriptStore;
  model: ModelClient;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  /** The tools offered this turn (policy applied; MCP tools as their servers stand now). */
  tools(): AgentTool[];
  /** The skills offered this turn (skills/agent-skills.ts); none when absent. */
  skills?: (() => Promise<OfferedSkill[]>) | undefined;
  /** Masks this agent's own secret values in tool results and answers. */
  masker: SecretMasker;
  limits: TurnLimits;
  /** The configured models a session may switch among with /model; absent: /model only shows `model`. */
  models?: { refs: string[]; forRef(ref: string): ModelClient } | undefined;
  /**
   * Where attachments come from and how they are understood (#16); absent, they are said not to
   * have arrived. Whether a photo goes as an image is the turn's model's to say (its imageInput).
   */
  media?: Omit<MediaInputDeps, 'signal' | 'imageInput'>;
  /** Spoken replies (#31, speech/spoken-reply.ts); absent where the agent has no tts (or no media store to keep a voice in). */
  speech?: Speaker | undefined;
}
