// The DynamoDB spend adapters (#31) over the real AWS SDK against the emulator, with the same
// behaviour cases as the in-memory and SQLite ones (test/support/spend-port-cases.ts): the
// control plane's count (a transaction of the report's claim and the month's sums), and the
// runtime's ledger (a write conditional on the version read), ten sessions racing it at once.
// Each describe block gets a table of its own; within a test, `make` is a new adapter on a new
// client over the same table, as a restarted process would be.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe } from 'vitest';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { DynamoSpendCounts, DynamoSpendLedger } from '../../shared/adapters/aws/dynamo-spend.ts';
import { awsTestEnv } from '../support/aws.ts';
import { spendCountsCases, spendLedgerCases } from '../support/spend-port-cases.ts';
import { createPkTable } from '../support/provision.ts';

const aws = awsTestEnv();
let tables = 0;
let current = '';

/** A fresh table per test, shaped as infra/constructs/fleet-tables.ts makes them (pk, TTL expiresAt). */
async function freshTable(): Promise<void> {
  current = `spend-${++tables}`;
  await createPkTable(new DynamoDBClient(aws), current);
}

describe('DynamoSpendCounts', () => {
  beforeEach(freshTable);
  spendCountsCases(() => new DynamoSpendCounts(dynamoDocumentClient(aws), current));
});
describe('DynamoSpendLedger', () => {
  beforeEach(freshTable);
  spendLedgerCases(() => new DynamoSpendLedger(dynamoDocumentClient(aws), current));
});
