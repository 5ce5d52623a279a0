/**
 * Proves that the emulator behind AWS_ENDPOINT_URL speaks the SQS, DynamoDB and Secrets
 * Manager semantics the project relies on, through the real AWS SDK v3 clients. Every
 * assertion here also holds on real AWS; where an emulator differs, see docs/testing.md.
 */
import { ConditionalCheckFailedException, DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { awsTestEnv, randomAccountId } from '../support/aws.ts';
import { createPkTable } from '../support/provision.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const ddb = new DynamoDBClient(aws);
const secrets = new SecretsManagerClient(aws);

afterAll(() => {
  for (const client of [sqs, ddb, secrets]) client.destroy();
});

let seq = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

async function createFifoQueue(client: SQSClient, attributes: Record<string, string> = {}): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: `${uniqueName('smoke')}.fifo`, Attributes: { FifoQueue: 'true', ...attributes } }),
  );
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

async function receive(queueUrl: string, options: { max?: number; wait?: number; visibility?: number } = {}): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.max ?? 10,
      WaitTimeSeconds: options.wait ?? 0,
      ...(options.visibility === undefined ? {} : { VisibilityTimeout: options.visibility }),
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

const bodies = (messages: Message[]) => messages.map((m) => m.Body);

describe('SQS FIFO', () => {
  it('delivers a message sent twice with the same MessageDeduplicationId once', async () => {
    const q = await createFifoQueue(sqs);
    const send = () =>
      sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'update 42', MessageGroupId: 'chat-1', MessageDeduplicationId: 'update-42' }));
    const first = await send();
    const second = await send();
    expect(first.MessageId).toBeTruthy();
    // A deduplicated send succeeds and reports the original message.
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.SequenceNumber).toBe(first.SequenceNumber);

    const received = await receive(q.url);
    expect(bodies(received)).toEqual(['update 42']);
    expect(received[0]!.Attributes).toMatchObject({ MessageGroupId: 'chat-1', MessageDeduplicationId: 'update-42' });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: received[0]!.ReceiptHandle }));
    expect(await receive(q.url)).toEqual([]);
  });

  it('keeps order within a MessageGroupId and holds a group back while one of its messages is in flight', async () => {
    const q = await createFifoQueue(sqs);
    for (const [group, body] of [
      ['A', 'a1'],
      ['A', 'a2'],
      ['B', 'b1'],
      ['A', 'a3'],
      ['B', 'b2'],
    ] as const) {
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: body }));
    }
    const [a1] = await receive(q.url, { max: 1 });
    expect(a1?.Body).toBe('a1');

    // Group A is locked while a1 is in flight; group B flows, in order.
    expect(bodies(await receive(q.url))).toEqual(['b1', 'b2']);
    expect(await receive(q.url)).toEqual([]);

    await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: a1!.ReceiptHandle }));
    expect(bodies(await receive(q.url))).toEqual(['a2', 'a3']);
  });

  it('ChangeMessageVisibility releases a message early and can delay it again', async () => {
    const q = await createFifoQueue(sqs);
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'job', MessageGroupId: 'g', MessageDeduplicationId: 'job' }));

    const [first] = await receive(q.url, { visibility: 30 });
    expect(first?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await receive(q.url)).toEqual([]); // invisible for 30 s

    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: first!.ReceiptHandle, VisibilityTimeout: 0 }));
    const [second] = await receive(q.url, { visibility: 30 });
    expect(second?.Body).toBe('job');
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');

    // Hidden for 10 s: long enough that the receive right after it comes before the end on a busy machine.
    const hidden = Date.now();
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: second!.ReceiptHandle, VisibilityTimeout: 10 }));
    expect(await receive(q.url)).toEqual([]);
    const [third] = await receive(q.url, { wait: 20 });
    expect(third?.Body).toBe('job');
    expect(Date.now() - hidden).toBeGreaterThanOrEqual(9_000);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount (2) receives', async () => {
    const dlq = await createFifoQueue(sqs);
    const q = await createFifoQueue(sqs, { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 }) });
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['RedrivePolicy'] }));
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 });

    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'poison', MessageGroupId: 'g', MessageDeduplicationId: 'poison' }));
    for (const expectedCount of ['1', '2']) {
      const [m] = await receive(q.url);
      expect(m?.Body).toBe('poison');
      expect(m?.Attributes?.ApproximateReceiveCount).toBe(expectedCount);
      await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: m!.ReceiptHandle, VisibilityTimeout: 0 }));
    }
    // The third receive attempt exceeds maxReceiveCount: the message goes to the DLQ instead.
    expect(await receive(q.url)).toEqual([]);

    const dead = await receive(dlq.url, { wait: 20 });
    expect(bodies(dead)).toEqual(['poison']);
    expect(dead[0]!.Attributes).toMatchObject({ MessageGroupId: 'g', DeadLetterQueueSourceArn: q.arn });
    expect(await receive(q.url)).toEqual([]);
  });
});

describe('SQS long polling', () => {
  it('waits WaitTimeSeconds on an empty queue', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName('longpoll') }));
    const started = Date.now();
    const messages = await receive(QueueUrl!, { wait: 2 });
    const waited = Date.now() - started;
    expect(messages).toEqual([]);
    expect(waited).toBeGreaterThanOrEqual(1_900);
    // It ends: a generous bound, as a busy machine answers late, never this late.
    expect(waited).toBeLessThan(30_000);
  });

  it('returns as soon as a message arrives during the wait', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName('longpoll') }));
    const started = Date.now();
    const polling = receive(QueueUrl!, { wait: 20 });
    await new Promise((r) => setTimeout(r, 700));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'wake up' }));
    const messages = await polling;
    const waited = Date.now() - started;
    expect(bodies(messages)).toEqual(['wake up']);
    expect(waited).toBeGreaterThanOrEqual(600);
    // Well before the poll's 20 s end (a generous bound: a busy machine is slow to send, not that slow).
    expect(waited).toBeLessThan(15_000);
  });
});

describe('DynamoDB', () => {
  it('rejects a second conditional put (attribute_not_exists) with ConditionalCheckFailedException', async () => {
    const table = uniqueName('ddb');
    await createPkTable(ddb, table);
    const put = (owner: string) =>
      ddb.send(
        new PutItemCommand({
          TableName: table,
          Item: { pk: { S: 'lease#agent-1' }, owner: { S: owner } },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    await put('first');

    const error = await put('second').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect((error as ConditionalCheckFailedException).Item).toEqual({ pk: { S: 'lease#agent-1' }, owner: { S: 'first' } });

    const { Item } = await ddb.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'lease#agent-1' } }, ConsistentRead: true }));
    expect(Item?.owner).toEqual({ S: 'first' });
  });
});

describe('Secrets Manager', () => {
  it('creates a secret and reads it back by name and by ARN', async () => {
    const name = `clawfleet/${uniqueName('agent')}/telegram-token`;
    const created = await secrets.send(new CreateSecretCommand({ Name: name, SecretString: '{"token":"123:abc"}' }));
    expect(created.ARN).toMatch(new RegExp(`^arn:aws:secretsmanager:${aws.region}:${aws.accountId}:secret:${name}-[A-Za-z0-9]{6}$`));

    for (const id of [name, created.ARN!]) {
      const value = await secrets.send(new GetSecretValueCommand({ SecretId: id }));
      expect(value.SecretString).toBe('{"token":"123:abc"}');
      expect(value.ARN).toBe(created.ARN);
      expect(value.VersionId).toBe(created.VersionId);
      expect(value.VersionStages).toContain('AWSCURRENT');
    }
    await expect(secrets.send(new GetSecretValueCommand({ SecretId: `${name}-missing` }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('account isolation by access key id', () => {
  it('gives two 12-digit access key ids separate SQS, DynamoDB and Secrets Manager state', async () => {
    const other = awsTestEnv(randomAccountId());
    expect(other.accountId).not.toBe(aws.accountId);
    const otherSqs = new SQSClient(other);
    const otherDdb = new DynamoDBClient(other);
    const otherSecrets = new SecretsManagerClient(other);
    try {
      const queueName = uniqueName('shared-name');
      const table = uniqueName('shared-table');
      const secretName = `clawfleet/${uniqueName('shared-secret')}`;

      const mine = await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
      await createPkTable(ddb, table);
      await secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'mine' }));
      expect(mine.QueueUrl).toContain(`/${aws.accountId}/`);

      // The other account sees none of it...
      await expect(otherSqs.send(new GetQueueUrlCommand({ QueueName: queueName }))).rejects.toBeInstanceOf(QueueDoesNotExist);
      expect((await otherDdb.send(new ListTablesCommand({}))).TableNames ?? []).not.toContain(table);
      await expect(otherSecrets.send(new GetSecretValueCommand({ SecretId: secretName }))).rejects.toBeInstanceOf(ResourceNotFoundException);

      // ...and can create the same names with its own contents.
      const theirs = await otherSqs.send(new CreateQueueCommand({ QueueName: queueName }));
      expect(theirs.QueueUrl).toContain(`/${other.accountId}/`);
      expect(theirs.QueueUrl).not.toBe(mine.QueueUrl);
      await createPkTable(otherDdb, table);
      await otherSecrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'theirs' }));

      await sqs.send(new SendMessageCommand({ QueueUrl: mine.QueueUrl, MessageBody: 'for me' }));
      expect(await otherSqs.send(new ReceiveMessageCommand({ QueueUrl: theirs.QueueUrl, WaitTimeSeconds: 0 }))).not.toHaveProperty('Messages.0');
      expect(bodies(await receive(mine.QueueUrl!))).toEqual(['for me']);

      await ddb.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'k' }, v: { S: 'mine' } } }));
      expect((await otherDdb.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'k' } } }))).Item).toBeUndefined();

      expect((await secrets.send(new GetSecretValueCommand({ SecretId: secretName }))).SecretString).toBe('mine');
      expect((await otherSecrets.send(new GetSecretValueCommand({ SecretId: secretName }))).SecretString).toBe('theirs');
    } finally {
      for (const client of [otherSqs, otherDdb, otherSecrets]) client.destroy();
    }
  });
});

describe('harness', () => {
  it('exports the endpoint to test workers both as inject() and as AWS_ENDPOINT_URL', () => {
    expect(inject('awsEndpoint')).toMatch(/^https?:\/\/[^/]+$/);
    expect(process.env.AWS_ENDPOINT_URL).toBe(inject('awsEndpoint'));
    expect(process.env.AWS_REGION).toBeTruthy();
    expect(process.env.AWS_ACCESS_KEY_ID).toBeTruthy();
  });
});
