// The model a local agent uses when it has no API key: it says plainly that it is not an
// AI and what to do about it, so a fresh clone answers in the browser without pretending.
import { assistantMessage, type ModelClient } from './model.ts';

/** `reason` says what is missing and how to give it (the launcher's words: local/model-key-hint.ts). */
export function offlineModel(reason: string): ModelClient {
  return {
    label: 'offline (no model key)',
    contextWindow: 1_000_000,
    async complete(req) {
      const last = [...req.messages].reverse().find((m) => m.role === 'user');
      const input = typeof last?.content === 'string' ? last.content : (last?.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
      const quoted = input.length > 200 ? `${input.slice(0, 200)}…` : input;
      const text = `[offline model — not an AI] ${reason}. I received: "${quoted}".`;
      return { ok: true, message: assistantMessage('offline/none', [{ type: 'text', text }]) };
    },
  };
}
