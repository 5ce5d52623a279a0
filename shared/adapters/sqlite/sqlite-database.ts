// Opens local mode's state database: one SQLite file (WAL) holding the agent queues, their
// dead letters and the control plane's registry, so nothing queued is lost when `npm start`
// stops or crashes. Only the local control plane process writes it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type StateDatabase = Database.Database;

/**
 * 2: sessions.blocked_at (a user who blocked the bot), added to version-1 files in place.
 * 3: sessions.stats (what the runtime last reported about the session, for /status), likewise.
 * 4: inbound_origins.status_reaction (where a message's status reaction stands, #31), likewise;
 *    sent_messages and reaction_rates (the user's reactions delivered, #31), new tables.
 */
const SCHEMA_VERSION = 4;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS queue_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  group_id TEXT NOT NULL,
  body TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  visible_at INTEGER NOT NULL DEFAULT 0,
  receive_count INTEGER NOT NULL DEFAULT 0,
  receipt TEXT UNIQUE
);
CREATE INDEX IF NOT EXISTS queue_messages_by_queue ON queue_messages (queue, seq);
CREATE TABLE IF NOT EXISTS queue_dedup (
  queue TEXT NOT NULL,
  dedup_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (queue, dedup_id)
);
CREATE TABLE IF NOT EXISTS dead_letters (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  body TEXT NOT NULL,
  reason TEXT NOT NULL,
  group_id TEXT,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_letters_by_queue ON dead_letters (queue, id);
CREATE TABLE IF NOT EXISTS sessions (
  session_key TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  target TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  blocked_at INTEGER,
  stats TEXT
);
CREATE TABLE IF NOT EXISTS inbound_dedupe (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deliveries (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('sending', 'delivered')),
  lease_until INTEGER NOT NULL,
  delivered_at INTEGER
);
-- The local dashboard's chat box, so a reply that arrives after a restart is still shown.
CREATE TABLE IF NOT EXISTS chat_lines (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  chat_id TEXT NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  ts INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_lines_by_chat ON chat_lines (chat_id, seq);
CREATE TABLE IF NOT EXISTS pairings (
  account_id TEXT NOT NULL,
  peer_id TEXT NOT NULL,
  code TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved')),
  expires_at INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (account_id, peer_id)
);
CREATE INDEX IF NOT EXISTS pairings_by_code ON pairings (code);
-- Where each inbound envelope came from (shared/control/origins.ts): whom its answer
-- reaches, and how many agent-to-agent relays it has caused.
CREATE TABLE IF NOT EXISTS inbound_origins (
  id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  relays INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER NOT NULL,
  status_reaction TEXT
);
-- Agent-to-agent relays per ordered pair and fixed window: the per-pair rate limit.
CREATE TABLE IF NOT EXISTS relay_rates (
  pair TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (pair, window_start)
);
-- The bot's messages (#31): whose answer each was, so a user's reaction to one reaches that agent.
CREATE TABLE IF NOT EXISTS sent_messages (
  account_id TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  message_id INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  session_key TEXT NOT NULL,
  thread_id INTEGER,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, chat_id, message_id)
);
-- The users' reactions per chat and fixed window (#31): how many reach the agents.
CREATE TABLE IF NOT EXISTS reaction_rates (
  chat TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (chat, window_start)
);
-- Relayed messages are origins now; the old relay log goes.
DROP TABLE IF EXISTS relays;
CREATE TABLE IF NOT EXISTS agent_status (
  agent_id TEXT PRIMARY KEY,
  last_heartbeat INTEGER,
  last_error TEXT,
  last_error_at INTEGER
);
`;

/** Opens (creating if needed) the state database at `path`; ':memory:' for tests. */
export function openStateDatabase(path: string): StateDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // WAL: readers (the CLI, a second look) never block the writer; NORMAL is durable
  // across a process crash, which is what a local fleet needs.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    db.close();
    throw new Error(`${path} was written by a newer clawfleet (schema ${version}; this build knows ${SCHEMA_VERSION})`);
  }
  db.exec(SCHEMA);
  // A version-1 file has its sessions table already, without the column (CREATE … IF NOT EXISTS left it).
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('sessions') as { name: string }[];
  if (!columns.some((c) => c.name === 'blocked_at')) db.exec('ALTER TABLE sessions ADD COLUMN blocked_at INTEGER');
  if (!columns.some((c) => c.name === 'stats')) db.exec('ALTER TABLE sessions ADD COLUMN stats TEXT');
  const originColumns = db.prepare('SELECT name FROM pragma_table_info(?)').all('inbound_origins') as { name: string }[];
  if (!originColumns.some((c) => c.name === 'status_reaction')) db.exec('ALTER TABLE inbound_origins ADD COLUMN status_reaction TEXT');
  // media (#16): a chat line may carry a file (JSON: key, name, type, size); older files gain the column empty.
  const chatColumns = db.prepare('SELECT name FROM pragma_table_info(?)').all('chat_lines') as { name: string }[];
  if (!chatColumns.some((c) => c.name === 'file')) db.exec('ALTER TABLE chat_lines ADD COLUMN file TEXT');
  // An agent's line may carry inline buttons (JSON rows of {text, data}); older files gain the column empty.
  if (!chatColumns.some((c) => c.name === 'buttons')) db.exec('ALTER TABLE chat_lines ADD COLUMN buttons TEXT');
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return db;
}
