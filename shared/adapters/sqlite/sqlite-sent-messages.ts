// The bot's messages by chat and id (#31) on local mode's SQLite file: whose answer each was, so a
// user's reaction to one reaches that agent. An expired row reads as absent, as on DynamoDB.
import type { SentMessageRecord, SentMessages } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteSentMessages implements SentMessages {
  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async put(record: SentMessageRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO sent_messages (account_id, chat_id, message_id, agent_id, session_key, thread_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, chat_id, message_id) DO UPDATE SET agent_id = excluded.agent_id, session_key = excluded.session_key,
           thread_id = excluded.thread_id, expires_at = excluded.expires_at`,
      )
      .run(record.accountId, record.chatId, record.messageId, record.agentId, record.sessionKey, record.threadId ?? null, record.expiresAt);
    // As DynamoDB's TTL, lazily: the writer reaps a few expired rows each time.
    this.db.prepare('DELETE FROM sent_messages WHERE rowid IN (SELECT rowid FROM sent_messages WHERE expires_at <= ? LIMIT 100)').run(this.now());
  }

  async get(accountId: string, chatId: string, messageId: number): Promise<SentMessageRecord | undefined> {
    const row = this.db
      .prepare(
        'SELECT agent_id, session_key, thread_id, expires_at FROM sent_messages WHERE account_id = ? AND chat_id = ? AND message_id = ? AND expires_at > ?',
      )
      .get(accountId, chatId, messageId, this.now()) as { agent_id: string; session_key: string; thread_id: number | null; expires_at: number } | undefined;
    if (!row) return undefined;
    return {
      accountId,
      chatId,
      messageId,
      agentId: row.agent_id,
      sessionKey: row.session_key,
      ...(row.thread_id !== null ? { threadId: row.thread_id } : {}),
      expiresAt: row.expires_at,
    };
  }
}
