// The chat box of the local dashboard as a channel: messages by chat (one chat per agent),
// numbered so the page can poll for what is new.
import type { ChannelSender, ChannelTarget } from '../shared/ports.ts';

export interface ChatLine {
  seq: number;
  role: 'user' | 'agent';
  text: string;
  ts: number;
}

export class LocalChat implements ChannelSender {
  readonly maxTextLength = 100_000;
  private seq = 0;
  private readonly lines = new Map<string, ChatLine[]>();
  private readonly typingUntil = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  add(chatId: string, role: ChatLine['role'], text: string): ChatLine {
    const line = { seq: ++this.seq, role, text, ts: this.now() };
    this.lines.set(chatId, [...(this.lines.get(chatId) ?? []), line]);
    if (role === 'agent') this.typingUntil.delete(chatId);
    return line;
  }

  since(chatId: string, after: number): { messages: ChatLine[]; typing: boolean } {
    return {
      messages: (this.lines.get(chatId) ?? []).filter((l) => l.seq > after),
      typing: (this.typingUntil.get(chatId) ?? 0) > this.now(),
    };
  }

  async sendText(target: ChannelTarget, text: string) {
    this.add(target.chatId, 'agent', text);
  }

  async sendTyping(target: ChannelTarget) {
    this.typingUntil.set(target.chatId, this.now() + 6_000);
  }
}
