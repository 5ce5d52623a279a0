// The chat box of the local dashboard as a channel: messages by chat (one chat per agent),
// numbered so the page can poll for what is new. Lines are kept in the state database,
// so an answer that arrives after a restart still shows up.
import type { StateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import type { ChannelSender, ChannelTarget } from '../shared/ports.ts';

export interface ChatLine {
  seq: number;
  role: 'user' | 'agent';
  text: string;
  ts: number;
}

export class LocalChat implements ChannelSender {
  readonly maxTextLength = 100_000;
  private readonly typingUntil = new Map<string, number>();

  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  add(chatId: string, role: ChatLine['role'], text: string): ChatLine {
    const ts = this.now();
    const seq = Number(this.db.prepare('INSERT INTO chat_lines (chat_id, role, text, ts) VALUES (?, ?, ?, ?)').run(chatId, role, text, ts).lastInsertRowid);
    if (role === 'agent') this.typingUntil.delete(chatId);
    return { seq, role, text, ts };
  }

  since(chatId: string, after: number): { messages: ChatLine[]; typing: boolean } {
    const messages = this.db
      .prepare('SELECT seq, role, text, ts FROM chat_lines WHERE chat_id = ? AND seq > ? ORDER BY seq LIMIT 500')
      .all(chatId, after) as ChatLine[];
    return { messages, typing: (this.typingUntil.get(chatId) ?? 0) > this.now() };
  }

  async sendText(target: ChannelTarget, text: string) {
    this.add(target.chatId, 'agent', text);
  }

  async sendTyping(target: ChannelTarget) {
    this.typingUntil.set(target.chatId, this.now() + 6_000);
  }
}
