// Turns in which the fake model has an agent run one command with exec and hands back what it
// printed: the model's side (a responder), and asking through the local fleet's chat box.
import { expect } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import type { ModelReply, ModelRequest } from './fake-model.ts';

/** How the answer to a `run:` turn starts; the exec result follows it. */
export const RESULT_PREFIX = 'RESULT\n';

/**
 * The fake model for `run: <command>` turns: an exec call (with `timeoutSeconds`), then, once its
 * result is back, a reply `RESULT\n<the result>` for the test to read. Any other text is answered
 * by `other` when it gives something, else echoed (`echo: <text>`).
 */
export function execResultResponder(timeoutSeconds: number, other: (req: ModelRequest) => ModelReply | undefined = () => undefined) {
  return (req: ModelRequest): ModelReply => {
    const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: `${RESULT_PREFIX}${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}` };
    const run = /^run: ([\s\S]+)$/.exec(req.lastUserText);
    if (run) return { toolCalls: [{ name: 'exec', arguments: { command: run[1], timeoutSeconds } }] };
    return other(req) ?? { text: `echo: ${req.lastUserText}` };
  };
}

/** Posts `text` to an agent's chat box and returns the text of its next answer that `match`es (default: a `run:` turn's result answer). */
export async function askChat(
  fleet: LocalFleet,
  agentId: string,
  text: string,
  { match = (t: string) => t.startsWith(RESULT_PREFIX), timeoutMs }: { match?: (text: string) => boolean; timeoutMs: number },
): Promise<string> {
  const before = fleet.cp.chat.since(agentId, 0).messages.length;
  await fleet.cp.chatMessage(agentId, text);
  let found: string | undefined;
  await expect
    .poll(
      () =>
        (found = fleet.cp.chat
          .since(agentId, 0)
          .messages.slice(before)
          .find((m) => m.role === 'agent' && match(m.text))?.text),
      { timeout: timeoutMs, interval: 100 },
    )
    .toBeDefined();
  return found!;
}

/**
 * The fake model for numbered `run#<n>: <command>` turns: an exec call (60 s), then, once its
 * result is back, the result kept in `results` under n and the turn ended with `done <n>`.
 * Any other text is echoed (`echo: <text>`).
 */
export function numberedExecResponder(results: Map<string, string>) {
  return (req: ModelRequest): ModelReply => {
    const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const last = messages.at(-1);
    const asked = /^run#(\d+): ([\s\S]+)$/.exec(req.lastUserText);
    if (last?.role === 'tool' && asked) {
      results.set(asked[1]!, typeof last.content === 'string' ? last.content : JSON.stringify(last.content));
      return { text: `done ${asked[1]}` };
    }
    if (asked) return { toolCalls: [{ name: 'exec', arguments: { command: asked[2]!, timeoutSeconds: 60 } }] };
    return { text: `echo: ${req.lastUserText}` };
  };
}
