// The model a local agent uses when it has no API key: it says plainly that it is not an
// AI and what to do about it, so a fresh clone answers in the browser without pretending.
import type { ModelClient } from './model.ts';

export function offlineModel(reason: string): ModelClient {
  return {
    label: 'offline (no model key)',
    async complete(req) {
      const quoted = req.input.length > 200 ? `${req.input.slice(0, 200)}…` : req.input;
      return {
        ok: true,
        text: `[offline model — not an AI] ${reason}. I received: "${quoted}". Add the key to clawfleet.secrets.json and restart to talk to the real model.`,
      };
    },
  };
}
