// A fake model's answers for tests that kill a runtime at a known point of a turn: each ask's
// requests are counted, and the `n`th answer to an ask can be held until a condition holds
// (checked as time goes by), so the test waits on events, never on the clock.
import type { FakeModel, ModelReply, ModelRequest } from './fake-model.ts';

/** The answer to `req`, the `n`th time its ask (the last user text) reached the model. */
export type CountedResponder = (req: ModelRequest, n: number) => ModelReply | Promise<ModelReply>;

/** Takes over `model`'s answers: "ok" until the test says otherwise. */
export function heldAnswers(model: FakeModel) {
  const asked = new Map<string, number>();
  const held = new Map<string, Promise<void>>();
  let respond: CountedResponder = () => ({ text: 'ok' });
  model.setResponder(async (req) => {
    const n = (asked.get(req.lastUserText) ?? 0) + 1;
    asked.set(req.lastUserText, n);
    await held.get(`${req.lastUserText}#${n}`);
    return respond(req, n);
  });
  return {
    /** How many times the model has been asked `ask` so far. */
    asked: (ask: string) => asked.get(ask) ?? 0,
    /** Answers from now on with `next`. */
    respond(next: CountedResponder): void {
      respond = next;
    },
    /** Holds the model's `n`th answer to `ask` until `ready()` holds. */
    hold(ask: string, n: number, ready: () => boolean): void {
      held.set(
        `${ask}#${n}`,
        new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (ready()) {
              clearInterval(check);
              resolve();
            }
          }, 20);
        }),
      );
    },
  };
}
