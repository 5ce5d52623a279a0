// Progress streaming (#31), OpenClaw's `streaming: "progress"`: while the agent works, one status
// shows what it is doing — a headline (what the model said before its latest tool calls, else
// "Working…") over a line per tool call — and the answer is sent whole at the end as a message
// of its own. The status travels as drafts (draft-stream.ts paces them: at most one per the
// chat's interval, one in flight, the latest only), so it appears only for a turn that is still
// working a draft interval after its first tool call: a plain text answer never shows one.
// What it shows is public to the chat: tool names (never their arguments or results) and the
// model's own words, this agent's secret values masked, each line cut short.
import type { Clock } from '../../../shared/ports.ts';
import type { Logger } from '../../../shared/log.ts';
import { DraftStream } from './draft-stream.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';

/** OpenClaw's defaults for a progress draft: its label, how many lines stay, how long each may be. */
export const PROGRESS_LABEL = 'Working…';
export const PROGRESS_MAX_LINES = 8;
export const PROGRESS_MAX_LINE_CHARS = 120;

/** The icon a tool's line starts with (OpenClaw's for the like of it); MCP tools share one. */
const ICONS: Record<string, string> = {
  exec: '🛠️',
  read: '📖',
  list: '📂',
  write: '✍️',
  edit: '✍️',
  memory_search: '🧠',
  memory_get: '🧠',
  web_search: '🔎',
  web_fetch: '🌐',
  browser: '🌐',
  send_file: '📎',
  sessions_send: '💬',
  cron: '⏰',
  reply_buttons: '🔘',
};

export interface ProgressStreamOptions {
  minIntervalMs: number;
  clock: Clock;
  masker: SecretMasker;
  send(seq: number, text: string): Promise<void>;
  log: Logger;
}

export class ProgressStream {
  private readonly drafts: DraftStream;
  private headline = '';
  /** One entry per run of calls to the same tool: its line and how many calls. */
  private readonly lines: { line: string; calls: number }[] = [];

  constructor(private readonly opts: ProgressStreamOptions) {
    this.drafts = new DraftStream({ ...opts, quiet: [], whole: true });
  }

  /** A tool call starts; `said` is what the model wrote before calling it (its text of that round). */
  toolStarted(name: string, said: string): void {
    const headline = firstLine(said);
    if (headline !== '') this.headline = headline;
    const line = toolLine(name);
    const last = this.lines.at(-1);
    if (last?.line === line) last.calls++;
    else this.lines.push({ line, calls: 1 });
    this.drafts.update(this.text());
  }

  /** Stops showing and waits for the status in flight: after this, none can follow the answer. */
  close(): Promise<void> {
    return this.drafts.close();
  }

  /** The status as shown: the headline, then the latest tool lines. */
  text(): string {
    const tools = this.lines.slice(-PROGRESS_MAX_LINES).map((l) => (l.calls > 1 ? `${l.line} ×${l.calls}` : l.line));
    return this.opts.masker.mask([cut(this.headline || PROGRESS_LABEL), ...tools].join('\n'));
  }
}

/** A tool's line: its icon and its name as code (an MCP tool's as "server: tool"), only characters a tool name has. */
export function toolLine(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_.-]+/g, '').slice(0, 64) || 'tool';
  const mcp = /^(.+?)__(.+)$/.exec(clean);
  if (mcp) return `🔌 \`${mcp[1]}: ${mcp[2]}\``;
  return `${ICONS[clean] ?? '🛠️'} \`${clean}\``;
}

/** The first line of what the model said, without Markdown's block marks. */
function firstLine(said: string): string {
  const line = said.trim().split('\n', 1)[0] ?? '';
  return line.replace(/^(#{1,6}\s+|>\s?|[-*+]\s+)/, '').trim();
}

/** At most PROGRESS_MAX_LINE_CHARS: cut at a word boundary where one is near, with an ellipsis. */
function cut(line: string): string {
  if (line.length <= PROGRESS_MAX_LINE_CHARS) return line;
  const head = line.slice(0, PROGRESS_MAX_LINE_CHARS - 1);
  const space = head.lastIndexOf(' ');
  return `${space > PROGRESS_MAX_LINE_CHARS / 2 ? head.slice(0, space) : head}…`;
}
