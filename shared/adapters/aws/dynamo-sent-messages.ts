// The bot's messages by chat and id (#31) in the origins table: `sent:<account>:<chat>:<message>`
// holds whose answer it was, and expires as an origin does. DynamoDB reaps expired items lazily,
// so a read also treats an expired one as absent.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SentMessageRecord, SentMessages } from '../../ports.ts';

const key = (accountId: string, chatId: string, messageId: number) => ({ pk: `sent:${accountId}:${chatId}:${messageId}` });

export class DynamoSentMessages implements SentMessages {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  async put(record: SentMessageRecord): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(record.accountId, record.chatId, record.messageId),
        UpdateExpression: 'SET agentId = :agent, sessionKey = :session, threadId = :thread, expiresAtMs = :ms, expiresAt = :ttl',
        ExpressionAttributeValues: {
          ':agent': record.agentId,
          ':session': record.sessionKey,
          ':thread': record.threadId ?? null,
          ':ms': record.expiresAt,
          ':ttl': Math.floor(record.expiresAt / 1000),
        },
      }),
    );
  }

  async get(accountId: string, chatId: string, messageId: number): Promise<SentMessageRecord | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key(accountId, chatId, messageId), ConsistentRead: true }));
    if (!Item || typeof Item.expiresAtMs !== 'number' || Item.expiresAtMs <= this.now()) return undefined;
    if (typeof Item.agentId !== 'string' || typeof Item.sessionKey !== 'string') return undefined;
    return {
      accountId,
      chatId,
      messageId,
      agentId: Item.agentId,
      sessionKey: Item.sessionKey,
      ...(typeof Item.threadId === 'number' ? { threadId: Item.threadId } : {}),
      expiresAt: Item.expiresAtMs,
    };
  }
}
