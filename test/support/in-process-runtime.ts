// fran's native runtime started inside the test's process, as the runtime's entry starts it but
// over in-memory queues: its environment read as the entry reads it (its secrets on the pipe, no
// control plane to reach, no heartbeat timer and short polls unless the test says otherwise).
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../../shared/adapters/memory/in-memory-state.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { readRuntimeEnv, type RuntimeEnv } from '../../runtime-image/src/env.ts';
import type { RuntimeParts } from '../../runtime-image/src/kinds/runtime-kind.ts';

/** fran's environment for `config` (clawfleet.json's content, as the test edited it), `vars` over the defaults, `secrets` on the pipe. */
export function franRuntimeEnv(config: unknown, vars: Record<string, string>, secrets: Record<string, string> = {}): Promise<RuntimeEnv> {
  return readRuntimeEnv(
    {
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(parseConfig(config), 'fran')),
      CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1',
      CLAWFLEET_SECRETS_FD: '3',
      CLAWFLEET_HEARTBEAT_SECONDS: '0',
      // stop() lets a waiting poll finish: keep it short.
      CLAWFLEET_WAIT_SECONDS: '1',
      CLAWFLEET_DRAIN_SECONDS: '0',
      ...vars,
    },
    async () => JSON.stringify({ token: 'x'.repeat(16), secrets }),
  );
}

/** What startAgentRuntime takes for `env`: in-memory queues and dead letters, no secrets, the system clock, a memory log; `more` over those. */
export function inMemoryRuntimeParts(env: RuntimeEnv, more: Partial<RuntimeParts> = {}): RuntimeParts {
  return {
    env,
    inbox: new InMemoryFifoQueue(),
    outbox: new InMemoryOutbox(),
    deadLetters: new InMemoryDeadLetters(),
    secrets: {},
    clock: systemClock,
    log: memoryLogger(),
    exit: () => {},
    ...more,
  };
}
