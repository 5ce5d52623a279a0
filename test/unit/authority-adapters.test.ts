// The authority ports' behaviour cases (test/support/authority-port-cases.ts) against the
// in-memory fakes the cores are tested with and the SQLite adapters local mode runs on.
import { describe } from 'vitest';
import { InMemoryAgentRegistry } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { SqliteAgentRegistry } from '../../shared/adapters/sqlite/sqlite-agent-registry.ts';
import {
  InMemoryInboundOrigins,
  InMemoryPairingStore,
  InMemoryReactionRates,
  InMemoryRelayRates,
  InMemorySentMessages,
  InMemorySessionRegistry,
} from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteInboundOrigins } from '../../shared/adapters/sqlite/sqlite-inbound-origins.ts';
import { SqlitePairingStore } from '../../shared/adapters/sqlite/sqlite-pairing-store.ts';
import { SqliteReactionRates } from '../../shared/adapters/sqlite/sqlite-reaction-rates.ts';
import { SqliteRelayRates } from '../../shared/adapters/sqlite/sqlite-relay-rates.ts';
import { SqliteSentMessages } from '../../shared/adapters/sqlite/sqlite-sent-messages.ts';
import { SqliteSessionRegistry } from '../../shared/adapters/sqlite/sqlite-state.ts';
import {
  agentRegistryHoldCases,
  inboundOriginsCases,
  pairingCapCases,
  reactionRatesCases,
  relayRatesCases,
  sentMessagesCases,
  sessionRegistryCases,
} from '../support/authority-port-cases.ts';

describe('InMemoryInboundOrigins', () => inboundOriginsCases((clock) => new InMemoryInboundOrigins(clock.now)));
describe('SqliteInboundOrigins', () => inboundOriginsCases((clock) => new SqliteInboundOrigins(openStateDatabase(':memory:'), clock.now)));
describe('InMemoryRelayRates', () => relayRatesCases(() => new InMemoryRelayRates()));
describe('SqliteRelayRates', () => relayRatesCases(() => new SqliteRelayRates(openStateDatabase(':memory:'))));
describe('InMemoryPairingStore (the cap)', () => pairingCapCases(() => new InMemoryPairingStore()));
describe('SqlitePairingStore (the cap)', () => pairingCapCases(() => new SqlitePairingStore(openStateDatabase(':memory:'))));
describe('InMemorySessionRegistry', () => sessionRegistryCases(() => new InMemorySessionRegistry()));
describe('SqliteSessionRegistry', () => sessionRegistryCases(() => new SqliteSessionRegistry(openStateDatabase(':memory:'))));
describe('InMemoryAgentRegistry (workspace holds)', () => agentRegistryHoldCases(() => new InMemoryAgentRegistry()));
describe('SqliteAgentRegistry (workspace holds)', () => agentRegistryHoldCases(() => new SqliteAgentRegistry(openStateDatabase(':memory:'))));
describe('InMemorySentMessages', () => sentMessagesCases((clock) => new InMemorySentMessages(clock.now)));
describe('SqliteSentMessages', () => sentMessagesCases((clock) => new SqliteSentMessages(openStateDatabase(':memory:'), clock.now)));
describe('InMemoryReactionRates', () => reactionRatesCases(() => new InMemoryReactionRates()));
describe('SqliteReactionRates', () => reactionRatesCases(() => new SqliteReactionRates(openStateDatabase(':memory:'))));
