// The chat box of the local dashboard as a channel: messages by chat (one chat per agent),
// numbered so the page can poll for what is new. Lines are kept in the state database,
// so an answer that arrives after a restart still shows up.
import type { StateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import type { ChannelSender, ChannelTarget, DraftView } from '../shared/ports.ts';

/** A draft nobody updated for this long is gone, as Telegram's draft bubble lapses after 30 s. */
const DRAFT_LIFETIME_MS = 30_000;

export interface ChatLine {
  seq: number;
  role: 'user' | 'agent';
  text: string;
  ts: number;
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

  add(chatId: string, role: ChatLine['role'], text: string): ChatLine {
    const ts = this.now();
    const seq = Number(this.db.prepare('INSERT INTO chat_lines (chat_id, role, text, ts) VALUES (?, ?, ?, ?)').run(chatId, role, text, ts).lastInsertRowid);
    if (role === 'agent') {
      this.typingUntil.delete(chatId);
      this.drafts.delete(chatId);
    }
    return { seq, role, text, ts };
  }

  since(chatId: string, after: number): { messages: ChatLine[]; typing: boolean; draft?: string } {
    const messages = this.db
      .prepare('SELECT seq, role, text, ts FROM chat_lines WHERE chat_id = ? AND seq > ? ORDER BY seq LIMIT 500')
      .all(chatId, after) as ChatLine[];
    const draft = this.drafts.get(chatId);
    const live = draft && draft.at + DRAFT_LIFETIME_MS > this.now() ? draft.text : undefined;
    return { messages, typing: (this.typingUntil.get(chatId) ?? 0) > this.now(), ...(live !== undefined ? { draft: live } : {}) };
  }

  async showDraft(target: ChannelTarget, draft: DraftView) {
    this.drafts.set(target.chatId, { text: draft.text, at: this.now() });
    return {};
  }

  async sendText(target: ChannelTarget, text: string) {
    this.add(target.chatId, 'agent', text);
  }

  async sendTyping(target: ChannelTarget) {
    this.typingUntil.set(target.chatId, this.now() + 6_000);
  }
}
