// A rejection a model provider's own code leaves unhandled, ended as the call's failure. pi-ai
// runs each call in a promise nobody awaits: a throw before its own try (while it builds the
// SDK client: a dynamic import, a proxy agent) is an unhandled rejection, and Node ends the
// process for one — the runtime died mid-turn. While a call is in flight such a rejection
// fails that call instead: a failed turn, never a dead runtime (STYLE: failures are data).

type Fail = (reason: unknown) => void;

const inFlight = new Set<Fail>();

function failInFlight(reason: unknown): void {
  for (const fail of inFlight) fail(reason);
}

/**
 * Runs `call`, rejected with the reason of any rejection left unhandled while it runs. A
 * rejection from elsewhere in the process at that moment fails the call too (it cannot say
 * whose it is), which then reports it as its error instead of ending the process. Outside a
 * call Node's own handling is untouched: the listener is there only while one runs.
 */
export async function withEscapesCaught<T>(call: () => Promise<T>): Promise<T> {
  let fail: Fail = () => {};
  const escaped = new Promise<never>((_, reject) => {
    fail = reject;
  });
  if (inFlight.size === 0) process.on('unhandledRejection', failInFlight);
  inFlight.add(fail);
  try {
    return await Promise.race([call(), escaped]);
  } finally {
    inFlight.delete(fail);
    if (inFlight.size === 0) process.off('unhandledRejection', failInFlight);
  }
}
