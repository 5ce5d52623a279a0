// A model for turn tests that answers from a script and records every request it was asked
// (a copy of its messages, as they stood then), so a test can read what reached the model.
import type { Message } from '@mariozechner/pi-ai';
import { assistantMessage, type ModelClient, type ModelRequest, type ModelResult } from '../../runtime-image/src/model/model.ts';

/** One answer: text and tool calls, a failure as the provider reports it, or a function of the request. */
export type ScriptStep =
  | { text?: string; calls?: { name: string; args: unknown }[] }
  | Extract<ModelResult, { ok: false }>
  | ((req: ModelRequest) => Promise<ModelResult> | ModelResult);

/** Answers `script` in order, then `after(req)`; `imageInput` is the model's, when the test says. */
export function recordingModel(
  script: ScriptStep[],
  opts: { after: (req: ModelRequest) => ScriptStep; imageInput?: boolean },
): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let n = 0;
  return {
    label: 'scripted/test',
    contextWindow: 100_000,
    ...(opts.imageInput === undefined ? {} : { imageInput: opts.imageInput }),
    requests,
    async complete(req) {
      requests.push({ ...req, messages: [...req.messages] });
      const step = script.shift() ?? opts.after(req);
      if (typeof step === 'function') return step(req);
      if ('ok' in step) return step;
      const content = [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...(step.calls ?? []).map((c) => ({ type: 'toolCall' as const, id: `call_${++n}`, name: c.name, arguments: c.args as Record<string, unknown> })),
      ];
      return { ok: true, message: assistantMessage('scripted/test', content) };
    },
  };
}

/** The text of the last user message in `messages` ('' when it has none, or it is not text). */
export function lastUserText(messages: Message[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}
