// The DynamoDB adapters of the authority ports — inbound origins, the per-pair relay rate,
// the pending-pairing cap and the agent registry's workspace holds (a ConditionExpression on
// the hold id) — over the real AWS SDK against the emulator, with the same behaviour cases
// as the in-memory and SQLite adapters (test/support/authority-port-cases.ts): conditional updates that never count past a limit, TTL honoured on read.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe } from 'vitest';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoInboundOrigins } from '../../shared/adapters/aws/dynamo-inbound-origins.ts';
import { DynamoPairingStore } from '../../shared/adapters/aws/dynamo-pairing-store.ts';
import { DynamoRelayRates } from '../../shared/adapters/aws/dynamo-relay-rates.ts';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { awsTestEnv } from '../support/aws.ts';
import {
  agentRegistryHoldCases,
  inboundOriginsCases,
  pairingCapCases,
  reactionRatesCases,
  relayRatesCases,
  sentMessagesCases,
  sessionRegistryCases,
} from '../support/authority-port-cases.ts';
import { DynamoReactionRates } from '../../shared/adapters/aws/dynamo-reaction-rates.ts';
import { DynamoSentMessages } from '../../shared/adapters/aws/dynamo-sent-messages.ts';
import { createPkTable } from '../support/provision.ts';

const aws = awsTestEnv();
const dynamo = dynamoDocumentClient(aws);
let tables = 0;

/** A fresh table per case, shaped as infra/constructs/fleet-tables.ts makes them (pk, TTL expiresAt). */
async function table(): Promise<string> {
  const name = `auth-${++tables}`;
  await createPkTable(new DynamoDBClient(aws), name);
  return name;
}

describe('DynamoInboundOrigins', () => inboundOriginsCases(async (clock) => new DynamoInboundOrigins(dynamo, await table(), clock.now)));
describe('DynamoRelayRates', () => relayRatesCases(async () => new DynamoRelayRates(dynamo, await table())));
describe('DynamoPairingStore (the cap)', () => pairingCapCases(async () => new DynamoPairingStore(dynamo, await table())));
describe('DynamoSessionRegistry', () => sessionRegistryCases(async () => new DynamoSessionRegistry(dynamo, await table())));
describe('DynamoAgentRegistry (workspace holds)', () => agentRegistryHoldCases(async () => new DynamoAgentRegistry(dynamo, await table())));
describe('DynamoSentMessages', () => sentMessagesCases(async (clock) => new DynamoSentMessages(dynamo, await table(), clock.now)));
describe('DynamoReactionRates', () => reactionRatesCases(async () => new DynamoReactionRates(dynamo, await table())));
