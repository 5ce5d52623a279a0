// The spend ports' behaviour cases (#31, test/support/spend-port-cases.ts) against the in-memory
// fakes and the SQLite adapters local mode runs on. Each test gets a store of its own; within a
// test, `make` opens the same store again, as a restarted process would (SQLite: a new adapter
// on the same file, closed and opened again).
import { rmSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.ts';
import { join } from 'node:path';
import { afterEach, beforeEach, describe } from 'vitest';
import { InMemorySpendCounts, InMemorySpendLedger } from '../../shared/adapters/memory/in-memory-spend.ts';
import { openStateDatabase, type StateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteSpendCounts, SqliteSpendLedger } from '../../shared/adapters/sqlite/sqlite-spend.ts';
import { spendCountsCases, spendLedgerCases } from '../support/spend-port-cases.ts';

let counts: InMemorySpendCounts;
let ledger: InMemorySpendLedger;
let dir: string;
let opened: StateDatabase[] = [];
beforeEach(() => {
  counts = new InMemorySpendCounts();
  ledger = new InMemorySpendLedger();
  dir = tempDir('cf-spend-');
});
afterEach(() => {
  for (const db of opened) db.close();
  opened = [];
  rmSync(dir, { recursive: true, force: true });
});
/** The test's state file, opened again: what a restarted local control plane reads. */
const reopen = () => {
  for (const db of opened) db.close();
  const db = openStateDatabase(join(dir, 'state.db'));
  opened = [db];
  return db;
};

describe('InMemorySpendCounts', () => spendCountsCases(() => counts));
describe('InMemorySpendLedger', () => spendLedgerCases(() => ledger));
describe('SqliteSpendCounts', () => spendCountsCases(() => new SqliteSpendCounts(reopen())));
describe('SqliteSpendLedger', () => spendLedgerCases(() => new SqliteSpendLedger(reopen())));
