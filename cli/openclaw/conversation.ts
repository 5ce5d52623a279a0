// The conversation settings of an OpenClaw Telegram channel and its accounts (OpenClaw 2026.9.6:
// `streaming {mode, block, preview, progress, chunkMode}`, `ackReaction`, `replyToMode`,
// `commands.native`, `statusReactions`, `reactionNotifications`, with the fleet-wide
// `messages.ackReaction[Scope]`, `messages.statusReactions`, `commands.native` and
// `agents.defaults.blockStreaming*`) as clawfleet's per-channel/per-account keys. A value
// clawfleet cannot honour is reported with its path and why, never dropped silently.
import { isReactionEmoji, reactionSpelling } from '../../shared/telegram/reaction-emoji.ts';
import { isObj, type Obj, type Reporter } from './convert-types.ts';
import { reactionNotificationsOf, statusReactionsOf } from './reactions.ts';

/** The keys of a Telegram channel or account this module converts (current and legacy spellings). */
export const CONVERSATION_KEYS = new Set([
  'streaming',
  'streamMode',
  'blockStreaming',
  'chunkMode',
  'blockStreamingCoalesce',
  'draftChunk',
  'ackReaction',
  'replyToMode',
  'commands',
  'statusReactions',
  'reactionNotifications',
]);
/** The agents.defaults keys read here: block streaming is fleet-wide in OpenClaw, per channel in clawfleet. */
export const BLOCK_STREAMING_DEFAULTS_KEYS = new Set([
  'blockStreamingDefault',
  'blockStreamingChunk',
  'blockStreamingCoalesce',
  'blockStreamingBreak',
  'humanDelay',
]);

/** clawfleet's limit (shared/config/schema.ts): Telegram's 4000-character message. A reaction must be one of Telegram's (isReactionEmoji). */
const MAX_CHUNK = 4_000;

type Mode = 'off' | 'partial' | 'block' | 'progress';
type Chunk = { minChars?: number; maxChars?: number };

/** What OpenClaw keeps outside the channel but applies to it. */
export interface FleetWide {
  blockStreamingDefault?: 'on' | 'off';
  blockChunk?: Chunk;
  ackReaction?: string;
  /** messages.ackReactionScope as clawfleet spells it; "off" turns every ack reaction off. */
  ackReactionScope: 'all' | 'direct' | 'group-mentions' | 'group-all' | 'off';
  commandsNative?: boolean;
  /** messages.statusReactions (#31), the channel's. */
  statusReactions?: Obj;
}

/** A value of the wrong shape (OpenClaw would refuse it too) is reported, never passed on or dropped unsaid. */
const unreadable = (r: Reporter, path: string, value: unknown) => r.skip(path, `${JSON.stringify(value)} is not a value OpenClaw or clawfleet reads here`);

const parseMode = (v: unknown): Mode | undefined =>
  typeof v === 'string' && ['off', 'partial', 'block', 'progress'].includes(v.trim().toLowerCase()) ? (v.trim().toLowerCase() as Mode) : undefined;

/** A chunk clawfleet accepts: positive integers clamped to 4000, minChars not over maxChars. */
function chunkOf(raw: unknown, at: string, r: Reporter): Chunk | undefined {
  if (raw !== undefined && !isObj(raw)) unreadable(r, at, raw);
  if (!isObj(raw)) return undefined;
  const out: Chunk = {};
  for (const k of ['minChars', 'maxChars'] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      r.skip(`${at}.${k}`, `${JSON.stringify(v)} is not a positive whole number`);
      continue;
    }
    if (v > MAX_CHUNK) r.note(`${at}.${k}: ${v} is over Telegram's ${MAX_CHUNK}-character message; clawfleet uses ${MAX_CHUNK}`);
    out[k] = Math.min(v, MAX_CHUNK);
  }
  if (out.minChars !== undefined && out.maxChars !== undefined && out.minChars > out.maxChars) {
    r.note(`${at}: minChars ${out.minChars} is over maxChars ${out.maxChars}; clawfleet uses minChars ${out.maxChars}`);
    out.minChars = out.maxChars;
  }
  if (raw.breakPreference !== undefined && raw.breakPreference !== 'paragraph')
    r.skip(
      `${at}.breakPreference`,
      `"${String(raw.breakPreference)}" is not supported: clawfleet cuts blocks at paragraphs, then at a line break outside a code block`,
    );
  for (const k of Object.keys(raw)) if (!['minChars', 'maxChars', 'breakPreference'].includes(k)) r.skip(`${at}.${k}`, 'no clawfleet equivalent');
  return Object.keys(out).length ? out : undefined;
}

/** The fleet-wide settings: messages.ackReaction(Scope), commands.native, agents.defaults.blockStreaming*. */
export function fleetWideConversation(root: Obj, defaults: Obj, telegram: boolean, r: Reporter): FleetWide {
  const messages = isObj(root.messages) ? root.messages : {};
  const commands = isObj(root.commands) ? root.commands : {};
  const unused = 'applies to channels, and no Telegram channel was converted';
  const fleet: FleetWide = { ackReactionScope: 'group-mentions' };

  // Block streaming: agents.defaults in OpenClaw, channels.telegram in clawfleet (the only channel).
  if (defaults.blockStreamingDefault === 'on' || defaults.blockStreamingDefault === 'off') fleet.blockStreamingDefault = defaults.blockStreamingDefault;
  else if (defaults.blockStreamingDefault !== undefined) unreadable(r, 'agents.defaults.blockStreamingDefault', defaults.blockStreamingDefault);
  fleet.blockChunk = chunkOf(defaults.blockStreamingChunk, 'agents.defaults.blockStreamingChunk', r);
  if (defaults.blockStreamingCoalesce !== undefined)
    r.skip('agents.defaults.blockStreamingCoalesce', 'not supported: clawfleet sends each block as soon as it is complete (size it with blockStreamingChunk)');
  if (defaults.blockStreamingBreak === 'message_end')
    r.skip('agents.defaults.blockStreamingBreak', '"message_end" is not supported: clawfleet sends each block while the model writes ("text_end")');
  if (defaults.humanDelay !== undefined) r.skip('agents.defaults.humanDelay', 'not supported: clawfleet sends blocks without an added pause');

  if (typeof messages.ackReaction === 'string') fleet.ackReaction = messages.ackReaction;
  else if (messages.ackReaction !== undefined) unreadable(r, 'messages.ackReaction', messages.ackReaction);
  const scope = messages.ackReactionScope;
  if (scope === 'off' || scope === 'none') fleet.ackReactionScope = 'off';
  else if (scope === 'all' || scope === 'direct' || scope === 'group-mentions' || scope === 'group-all') fleet.ackReactionScope = scope;
  else if (scope !== undefined) r.skip('messages.ackReactionScope', `"${String(scope)}" is not a scope clawfleet knows`);
  if (scope === undefined && telegram)
    r.note('channels.telegram: ackReactionScope "group-mentions", OpenClaw\'s default (clawfleet\'s own default "all" would also react in private chats)');
  fleet.statusReactions = telegram ? statusReactionsOf(messages.statusReactions, 'messages.statusReactions', r) : undefined;
  if (typeof commands.native === 'boolean') fleet.commandsNative = commands.native;
  else if (commands.native !== undefined && commands.native !== 'auto') unreadable(r, 'commands.native', commands.native);

  if (!telegram) {
    for (const k of ['ackReaction', 'ackReactionScope', 'statusReactions'] as const) if (messages[k] !== undefined) r.skip(`messages.${k}`, unused);
    if (commands.native !== undefined) r.skip('commands.native', unused);
  }
  // messages.tts is spoken replies' (cli/openclaw/openclaw-tts.ts).
  for (const k of Object.keys(messages))
    if (!['ackReaction', 'ackReactionScope', 'statusReactions', 'tts'].includes(k)) r.skip(`messages.${k}`, 'no clawfleet equivalent');
  for (const k of Object.keys(commands))
    if (k !== 'native') r.skip(`commands.${k}`, k === 'nativeSkills' ? 'skills are not offered as Telegram commands' : 'no clawfleet equivalent');
  return fleet;
}

/** Whether a scope writes a streaming mode at all, in any spelling, readable or not. */
const modeWritten = (raw: Obj): boolean =>
  (isObj(raw.streaming) ? raw.streaming.mode !== undefined : raw.streaming !== undefined) || raw.streamMode !== undefined;

/** The raw streaming settings of one scope, legacy spellings read as OpenClaw's doctor migrates them. */
function streamingOf(raw: Obj, at: string, r: Reporter): { mode?: Mode; blockEnabled?: boolean; settings: Obj } {
  const settings = isObj(raw.streaming) ? raw.streaming : {};
  let mode = parseMode(settings.mode);
  if (settings.mode !== undefined && !mode) r.skip(`${at}.streaming.mode`, `"${String(settings.mode)}" is not a streaming mode`);
  // Nested mode > scalar string > streamMode > boolean (OpenClaw's resolveLegacyAliasStreamingMode).
  if (!mode && settings.mode === undefined) {
    mode = parseMode(raw.streaming) ?? parseMode(raw.streamMode) ?? (typeof raw.streaming === 'boolean' ? (raw.streaming ? 'partial' : 'off') : undefined);
    if (mode && !isObj(raw.streaming))
      r.note(`${at}: the legacy ${raw.streamMode !== undefined ? 'streamMode' : 'streaming'} spelling is read as streaming.mode "${mode}"`);
  }
  if (raw.streaming !== undefined && !isObj(raw.streaming) && typeof raw.streaming !== 'boolean' && !parseMode(raw.streaming))
    unreadable(r, `${at}.streaming`, raw.streaming);
  if (raw.streamMode !== undefined && !parseMode(raw.streamMode)) unreadable(r, `${at}.streamMode`, raw.streamMode);
  if (raw.blockStreaming !== undefined && typeof raw.blockStreaming !== 'boolean') unreadable(r, `${at}.blockStreaming`, raw.blockStreaming);
  if (settings.block !== undefined && !isObj(settings.block)) unreadable(r, `${at}.streaming.block`, settings.block);
  const block = isObj(settings.block) ? settings.block : {};
  if (block.enabled !== undefined && typeof block.enabled !== 'boolean') unreadable(r, `${at}.streaming.block.enabled`, block.enabled);
  const blockEnabled = typeof block.enabled === 'boolean' ? block.enabled : typeof raw.blockStreaming === 'boolean' ? raw.blockStreaming : undefined;
  return { mode, blockEnabled, settings };
}

/**
 * The conversation keys of one Telegram scope. `channel` is the channel's raw object when
 * converting an account (an account inherits what it does not set, in both systems).
 */
export function conversationOf(raw: Obj, at: string, fleet: FleetWide, r: Reporter, channel?: Obj): Obj {
  const out: Obj = {};
  const isAccount = channel !== undefined;

  // ── Streaming ─────────────────────────────────────────────────────────────────
  const own = streamingOf(raw, at, r);
  const inherited = isAccount ? streamingOf(channel, '', { skip: () => {}, note: () => {} }) : { mode: undefined, blockEnabled: undefined };
  const setsStreaming = own.mode !== undefined || own.blockEnabled !== undefined || (!isAccount && fleet.blockStreamingDefault === 'on');
  if (setsStreaming) {
    const mode = own.mode ?? inherited.mode;
    const blockEnabled = own.blockEnabled ?? inherited.blockEnabled;
    // OpenClaw's resolveChannelStreamingBlockEnabled: an explicit block.enabled wins; else an
    // explicit preview mode other than off turns inherited block streaming off.
    const blocks = blockEnabled ?? ((mode === undefined || mode === 'off') && fleet.blockStreamingDefault === 'on');
    if (blocks) {
      out.streaming = 'block';
      if (own.blockEnabled === undefined && !isAccount) r.note(`${at}: agents.defaults.blockStreamingDefault "on" is streaming "block" here`);
    } else if (mode === 'off' || mode === 'partial' || mode === 'progress') out.streaming = mode;
    else if (mode === 'block') {
      out.streaming = 'block';
      r.note(
        `${at}.streaming.mode: OpenClaw's "block" preview (one edited preview, rotated into a new message every preview.chunk.maxChars) is clawfleet's "block": each completed block a message of its own, no edited preview`,
      );
      const chunk = chunkOf(isObj(own.settings.preview) ? own.settings.preview.chunk : undefined, `${at}.streaming.preview.chunk`, r);
      if (chunk) out.blockStreamingChunk = chunk;
    }
  } else if (!isAccount && !modeWritten(raw)) {
    // clawfleet's own default is "partial": the imported fleet keeps OpenClaw's (a mode that cannot be read was reported above).
    out.streaming = 'progress';
    r.note(
      `${at}: no streaming mode — OpenClaw's Telegram default is "progress" (a status draft of the work, then the answer), written as streaming "progress"`,
    );
  }
  if (!isAccount && fleet.blockChunk) {
    if (out.blockStreamingChunk === undefined) out.blockStreamingChunk = fleet.blockChunk;
    else
      r.skip(
        'agents.defaults.blockStreamingChunk',
        `${at} keeps its "block" preview's streaming.preview.chunk as blockStreamingChunk, the one clawfleet has per channel`,
      );
  }
  reportStreamingLeftovers(raw, own.settings, at, r);

  // ── Ack reaction ──────────────────────────────────────────────────────────────
  if (raw.ackReaction !== undefined && typeof raw.ackReaction !== 'string') unreadable(r, `${at}.ackReaction`, raw.ackReaction);
  const emoji = typeof raw.ackReaction === 'string' ? raw.ackReaction : isAccount ? undefined : fleet.ackReaction;
  const emojiFrom = typeof raw.ackReaction === 'string' ? `${at}.ackReaction` : 'messages.ackReaction';
  if (fleet.ackReactionScope === 'off') {
    if (!isAccount) out.ackReaction = '';
    if (emoji) r.skip(emojiFrom, 'messages.ackReactionScope is off, so no message gets a reaction (clawfleet: ackReaction "")');
  } else if (emoji !== undefined) {
    if (emoji !== '' && !isReactionEmoji(emoji)) r.skip(emojiFrom, `"${emoji}" is not one reaction emoji Telegram takes (setMessageReaction would refuse it)`);
    else out.ackReaction = emoji === '' ? '' : reactionSpelling(emoji);
  }
  if (!isAccount && fleet.ackReactionScope !== 'off') out.ackReactionScope = fleet.ackReactionScope;

  // ── Reply threading ───────────────────────────────────────────────────────────
  const reply = raw.replyToMode;
  if (reply === 'off' || reply === 'first' || reply === 'all') out.replyToMode = reply;
  else if (reply === 'batched')
    r.skip(
      `${at}.replyToMode`,
      '"batched" threads a reply only to a burst of messages batched into one turn; clawfleet does not batch, so replies are not threaded (off)',
    );
  else if (reply !== undefined) r.skip(`${at}.replyToMode`, `${JSON.stringify(reply)} is not off, first or all`);

  // ── Native commands (the channel's setting wins over the fleet-wide one) ────────
  if (raw.commands !== undefined && !isObj(raw.commands)) unreadable(r, `${at}.commands`, raw.commands);
  const commands = isObj(raw.commands) ? raw.commands : {};
  if (commands.native !== undefined && typeof commands.native !== 'boolean' && commands.native !== 'auto')
    unreadable(r, `${at}.commands.native`, commands.native);
  const native = typeof commands.native === 'boolean' ? commands.native : isAccount ? undefined : fleet.commandsNative;
  if (native !== undefined) out.commands = { native };
  if (commands.nativeSkills !== undefined) r.skip(`${at}.commands.nativeSkills`, 'skills are not offered as Telegram commands');
  for (const k of Object.keys(commands)) if (k !== 'native' && k !== 'nativeSkills') r.skip(`${at}.commands.${k}`, 'no clawfleet equivalent');

  // ── Reactions (#31): status reactions (the channel's from messages.*, an account's its own) and the users' reactions ──
  const status = statusReactionsOf(raw.statusReactions, `${at}.statusReactions`, r) ?? (isAccount ? undefined : fleet.statusReactions);
  if (status) out.statusReactions = status;
  const notifications = reactionNotificationsOf(raw.reactionNotifications, `${at}.reactionNotifications`, r);
  if (notifications) out.reactionNotifications = notifications;
  return out;
}

function reportStreamingLeftovers(raw: Obj, settings: Obj, at: string, r: Reporter): void {
  const chunking = 'clawfleet always splits a long reply at paragraph and block boundaries (after converting it to Telegram HTML)';
  if (settings.chunkMode !== undefined) r.skip(`${at}.streaming.chunkMode`, chunking);
  if (raw.chunkMode !== undefined) r.skip(`${at}.chunkMode`, chunking);
  if (settings.preview !== undefined && !isObj(settings.preview)) unreadable(r, `${at}.streaming.preview`, settings.preview);
  const preview = isObj(settings.preview) ? settings.preview : {};
  for (const k of Object.keys(preview)) {
    if (k === 'chunk') {
      if (parseMode(settings.mode) !== 'block') r.skip(`${at}.streaming.preview.chunk`, 'used only by the "block" preview mode');
    } else if (k === 'toolProgress' || k === 'commandText')
      r.skip(
        `${at}.streaming.preview.${k}`,
        'clawfleet shows no tool-progress lines in an answer\'s draft (streaming "progress" shows them, instead of the answer)',
      );
    else r.skip(`${at}.streaming.preview.${k}`, 'no clawfleet equivalent');
  }
  if (settings.progress !== undefined && !isObj(settings.progress)) unreadable(r, `${at}.streaming.progress`, settings.progress);
  const progress = isObj(settings.progress) ? settings.progress : {};
  for (const [k, v] of Object.entries(progress)) {
    // clawfleet's status always has the tool lines (OpenClaw's Telegram default).
    if (k === 'toolProgress' && v === true) continue;
    r.skip(
      `${at}.streaming.progress.${k}`,
      'clawfleet\'s progress status is fixed: the model\'s words (else "Working…") over a line per tool call by name, the last 8 lines, each at most 120 characters',
    );
  }
  const block = isObj(settings.block) ? settings.block : {};
  if (block.coalesce !== undefined || raw.blockStreamingCoalesce !== undefined)
    r.skip(
      block.coalesce !== undefined ? `${at}.streaming.block.coalesce` : `${at}.blockStreamingCoalesce`,
      'not supported: clawfleet sends each block as soon as it is complete',
    );
  if (raw.draftChunk !== undefined) r.skip(`${at}.draftChunk`, 'a legacy preview setting with no clawfleet equivalent');
  for (const k of Object.keys(settings))
    if (!['mode', 'chunkMode', 'preview', 'progress', 'block'].includes(k)) r.skip(`${at}.streaming.${k}`, 'no clawfleet equivalent');
  for (const k of Object.keys(block)) if (k !== 'enabled' && k !== 'coalesce') r.skip(`${at}.streaming.block.${k}`, 'no clawfleet equivalent');
}
