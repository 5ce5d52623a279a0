// The chat box of the local dashboard as a channel: messages by chat (one chat per agent),
// numbered so the page can poll for what is new. Lines are kept in the state database,
// so an answer that arrives after a restart still shows up.
import type { StateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import type { ChannelSender, ChannelTarget, DraftView, OutgoingFile, OutgoingVoice, SendOptions } from '../shared/ports.ts';
import type { Buttons } from '../shared/protocol/envelopes.ts';

/** A draft nobody updated for this long is gone, as Telegram's draft bubble lapses after 30 s. */
const DRAFT_LIFETIME_MS = 30_000;

export interface ChatLine {
  seq: number;
  role: 'user' | 'agent';
  text: string;
  ts: number;
  /** A file the line carries (#16): kept in the media store under the agent's prefix, shown by the dashboard. */
  file?: ChatFile | undefined;
  /** The labels of the inline buttons under an agent's line, by row; their data stays here (a press names a button, never data). */
  buttons?: string[][] | undefined;
}

export interface ChatFile {
  key: string;
  name: string;
  mimeType: string;
  size: number;
}

export class LocalChat implements ChannelSender {
  readonly maxTextLength = 100_000;
  private readonly typingUntil = new Map<string, number>();
  /** The answer being written, per chat: shown under the last line until the reply lands. */
  private readonly drafts = new Map<string, { text: string; at: number }>();

  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  add(chatId: string, role: ChatLine['role'], text: string, file?: ChatFile, buttons?: Buttons): ChatLine {
    const ts = this.now();
    const seq = Number(
      this.db
        .prepare('INSERT INTO chat_lines (chat_id, role, text, ts, file, buttons) VALUES (?, ?, ?, ?, ?, ?)')
        .run(chatId, role, text, ts, file ? JSON.stringify(file) : null, buttons ? JSON.stringify(buttons) : null).lastInsertRowid,
    );
    if (role === 'agent') {
      this.typingUntil.delete(chatId);
      this.drafts.delete(chatId);
    }
    return { seq, role, text, ts, ...(file ? { file } : {}), ...(buttons ? { buttons: labels(buttons) } : {}) };
  }

  /** The button at `row`, `column` under the agent's line `seq` in this chat, if there is one. */
  button(chatId: string, seq: number, row: number, column: number): { text: string; data: string } | undefined {
    const line = this.db.prepare("SELECT buttons FROM chat_lines WHERE chat_id = ? AND seq = ? AND role = 'agent'").get(chatId, seq) as
      | { buttons: string | null }
      | undefined;
    if (!line?.buttons) return undefined;
    return (JSON.parse(line.buttons) as Buttons)[row]?.[column];
  }

  since(chatId: string, after: number): { messages: ChatLine[]; typing: boolean; draft?: string } {
    const rows = this.db
      .prepare('SELECT seq, role, text, ts, file, buttons FROM chat_lines WHERE chat_id = ? AND seq > ? ORDER BY seq LIMIT 500')
      .all(chatId, after) as (Omit<ChatLine, 'file' | 'buttons'> & { file: string | null; buttons: string | null })[];
    const messages = rows.map(({ file, buttons, ...line }) => ({
      ...line,
      ...(file ? { file: JSON.parse(file) as ChatFile } : {}),
      ...(buttons ? { buttons: labels(JSON.parse(buttons) as Buttons) } : {}),
    }));
    const draft = this.drafts.get(chatId);
    const live = draft && draft.at + DRAFT_LIFETIME_MS > this.now() ? draft.text : undefined;
    return { messages, typing: (this.typingUntil.get(chatId) ?? 0) > this.now(), ...(live !== undefined ? { draft: live } : {}) };
  }

  async showDraft(target: ChannelTarget, draft: DraftView) {
    this.drafts.set(target.chatId, { text: draft.text, at: this.now() });
    return {};
  }

  async sendText(target: ChannelTarget, text: string, opts?: SendOptions) {
    this.add(target.chatId, 'agent', text, undefined, opts?.buttons);
  }

  /** A file the agent sends (#16): a line linking to it in the media store, where the outbox read it from. */
  async sendFile(target: ChannelTarget, file: OutgoingFile) {
    if (!file.key) throw new Error('the local chat shows files by their media key, and this one has none');
    this.add(target.chatId, 'agent', file.caption ?? '', { key: file.key, name: file.fileName, mimeType: file.mimeType, size: file.bytes.byteLength });
  }

  /** A spoken reply (#31): one line with the reply's text and its voice, which the dashboard offers as a download. */
  async sendVoice(target: ChannelTarget, voice: OutgoingVoice, opts?: SendOptions & { caption?: string | undefined }) {
    this.add(
      target.chatId,
      'agent',
      opts?.caption ?? '',
      { key: voice.key, name: 'voice.ogg', mimeType: 'audio/ogg', size: voice.bytes.byteLength },
      opts?.buttons,
    );
  }

  /** Any reply is one line here, however long: its text always goes with the voice. */
  async captionFits() {
    return true;
  }

  async sendTyping(target: ChannelTarget) {
    this.typingUntil.set(target.chatId, this.now() + 6_000);
  }
}

const labels = (buttons: Buttons) => buttons.map((row) => row.map((b) => b.text));
