// The outbox core's deps for a test, over in-memory state: fresh sessions, delivery ledger,
// dead letters and log unless the test brings its own; the test names its config, origins,
// channel and clock (and any relay, media, pacer) — what its cases are about.
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import type { OutboxDeps } from '../../shared/control/outbox.ts';
import { memoryLogger } from '../../shared/log.ts';

/** `own` over in-memory defaults; `dlq` is where `deadLetters()` puts what the outbox refuses. */
export function memoryOutboxDeps(own: Pick<OutboxDeps, 'config' | 'origins' | 'channel' | 'clock'> & Partial<OutboxDeps>) {
  const dlq = new InMemoryDeadLetters();
  const deps: OutboxDeps = {
    sessions: new InMemorySessionRegistry(),
    ledger: new InMemoryDeliveryLedger(),
    deadLetters: () => dlq,
    log: memoryLogger(),
    ...own,
  };
  return { deps, dlq };
}
