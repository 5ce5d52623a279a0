// Media on the AWS path, over real wire protocols (#16): a photo POSTed to λ telegram-webhook is
// fetched from the fake Bot API and kept in the emulator's S3 under the agent's in/ prefix; the
// runtime (a child process on its own SQS queues) reads it with its signed S3 requests and the
// fake model server gets it as an image part; a voice message is transcribed with the key from
// the agent's own Secrets Manager secret; a file over Telegram's 20 MB is answered with a note,
// never fetched; send_file's document goes out through λ outbox as a multipart sendDocument
// once; a forged envelope naming another agent's key lands in the sender's outbox DLQ; a
// document lands in the workspace where the read tool reads it; a text-only model (grif's, a
// second runtime) gets a note with the picture's path instead of an image; and a photo and a
// document sent with send_file reach the chat once each although the runtime is SIGKILLed
// after sending them and a new one redoes the turn.
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionUrlEvent } from '../../functions/function-url.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram, type UploadedPart } from '../support/fake-telegram.ts';
import { startTranscription, type FakeTranscription } from '../support/fake-transcription.ts';
import { startOutboxPump } from '../support/outbox-pump.ts';
import { provisionFleet, type ProvisionedFleet, queueRuntimeEnv } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { CHART_ANSWER, CHART_ASK, expectEachFileOnce, scriptChartAndFigures } from '../support/send-file-twice.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { mediaUpdate as mediaUpdateIn } from '../support/media-update.ts';

const aws = awsTestEnv();
const BUCKET = `cf-media-e2e-${aws.accountId}`;
const TOKEN = '1000002:AAfran-media-token-00000000000000000';
const GRIF_TOKEN = '1000003:AAgrif-media-token-00000000000000000';
const MODEL_KEY = 'sk-test-media-aws-0123456789';
const STT_KEY = 'sk-test-stt-aws-0123456789';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let tg: FakeTelegram;
let model: FakeModel;
let stt: FakeTranscription;
let fleet: ProvisionedFleet;
let webhook: (event: FunctionUrlEvent) => Promise<{ statusCode: number; body: string }>;
let pump: { stop(): Promise<void> };
let runtime: RuntimeProcess;
let workspace: string;
/** Fran's runtime environment: a runtime started again after a SIGKILL gets the same. */
let franEnv: Record<string, string>;
let grif: RuntimeProcess | undefined;
let config: ReturnType<typeof parseConfig>;
const today = () => new Date().toISOString().slice(0, 10);
const s3 = new S3Client({ ...aws, forcePathStyle: true });

const post = (update: Update, account: 'fran' | 'grif' = 'fran') =>
  webhook({
    rawPath: `/telegram/${account}`,
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(account === 'fran' ? TOKEN : GRIF_TOKEN) },
    body: JSON.stringify(update),
    requestContext: { http: { method: 'POST' } },
  });

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: TOKEN }, { token: GRIF_TOKEN }] });
  model = await startModel({ apiKey: MODEL_KEY });
  stt = await startTranscription({ apiKey: STT_KEY });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'media';
  example.channels.telegram.apiRoot = tg.url;
  example.channels.telegram.allowFrom = ['5001'];
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  // Fran's model (the default, gpt-4.1-mini) takes images; grif's, one the list leaves out, does not.
  example.models.providers.openai.imageModels = ['gpt-4.1-mini'];
  const fran = example.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.tools = { media: { audio: { baseUrl: stt.url, model: 'whisper-1', apiKeySecret: 'STT_KEY' } } };
  example.agents.list.find((a: { id: string }) => a.id === 'grif').model = 'openai/gpt-4o-mini';
  config = parseConfig(example);
  fleet = await provisionFleet(aws, config, {
    telegram: { FRAN_BOT_TOKEN: TOKEN, GRIF_BOT_TOKEN: GRIF_TOKEN },
    agents: { fran: { OPENAI_API_KEY: MODEL_KEY, STT_KEY }, grif: { OPENAI_API_KEY: MODEL_KEY } },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));

  setHandlerEnv(aws, config);
  process.env.CLAWFLEET_MEDIA_BUCKET = BUCKET;
  webhook = (await import('../../functions/telegram-webhook.ts')).handler;
  const outbox = (await import('../../functions/outbox.ts')).handler;
  pump = startOutboxPump(
    aws,
    Object.values(fleet.queues).map((q) => ({ url: q.outbox, arn: q.outboxArn })),
    outbox,
  );

  workspace = tempDir('cf-media-aws-');
  franEnv = runtimeEnv('fran', workspace);
  runtime = startRuntime(franEnv);
  await runtime.waitFor((l) => l.msg === 'ready');
});

/** A runtime's environment on its own queues, reading its secret and the media bucket with signed requests. */
function runtimeEnv(agentId: 'fran' | 'grif', dir: string): Record<string, string> {
  return { ...queueRuntimeEnv(aws, fleet, { config, agentId, workspace: dir, visibilitySeconds: 4, drainSeconds: 5 }), CLAWFLEET_MEDIA_BUCKET: BUCKET };
}

afterAll(async () => {
  delete process.env.CLAWFLEET_MEDIA_BUCKET;
  await runtime?.kill('SIGKILL');
  await grif?.kill('SIGKILL');
  await pump?.stop();
  await tg?.close();
  await model?.close();
  await stt?.close();
});

/** An update from 5001 carrying `fields` instead of text. */
const mediaUpdate = (updateId: number, fields: Record<string, unknown>) => mediaUpdateIn(updateId, 5001, fields);

describe('media on AWS', () => {
  it('takes a photo through the webhook into S3 and to the vision model as an image part', async () => {
    const jpeg = Buffer.from('\xff\xd8\xff\xe0 aws jpeg', 'latin1');
    const file = tg.addFile(TOKEN, jpeg, 'photos/file_7.jpg');
    const update = mediaUpdate(300, { photo: [{ ...file, width: 640, height: 480 }], caption: 'and this?' });
    model.script({ text: 'A small jpeg.' });
    const from = model.requests().length;
    const res = await post(update);
    expect(res.statusCode).toBe(200);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'A small jpeg.'), { timeout: 20_000 }).toBe(true);
    expect(model.requests().slice(from)[0]!.images).toEqual([{ mimeType: 'image/jpeg', size: jpeg.length, sha256: sha(jpeg) }]);
  });

  it('transcribes a voice message with the key from the agent’s own secret, and answers it', async () => {
    const ogg = Buffer.from('OggS aws voice');
    const file = tg.addFile(TOKEN, ogg, 'voice/file_8.oga');
    stt.answer({ text: 'what is on my calendar' });
    model.script({ text: 'Nothing today.' });
    const from = model.requests().length;
    expect((await post(mediaUpdate(302, { voice: { ...file, duration: 2, mime_type: 'audio/ogg' } }))).statusCode).toBe(200);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'Nothing today.'), { timeout: 20_000 }).toBe(true);
    expect(stt.requests().at(-1)).toMatchObject({ authorization: `Bearer ${STT_KEY}`, model: 'whisper-1', file: { size: ogg.length, sha256: sha(ogg) } });
    expect(model.requests().slice(from)[0]!.lastUserText).toContain('Transcript:]\nwhat is on my calendar');
  });

  it('answers a file over Telegram’s 20 MB download limit with a note to the user and the agent, fetching nothing', async () => {
    const before = tg.calls('getFile').length;
    model.script({ text: 'That file was too big for me.' });
    const from = model.requests().length;
    const big = { file_id: 'too-big-aws', file_unique_id: 'tba', file_size: 21 * 1024 * 1024, file_name: 'film.mkv' };
    expect((await post(mediaUpdate(303, { document: big }))).statusCode).toBe(200);
    await expect
      .poll(
        () => tg.calls('sendMessage').some((c) => String(c.params.text).includes('over the 20 MiB a Telegram bot may download, so your agent did not get it')),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'That file was too big for me.'), { timeout: 20_000 }).toBe(true);
    expect(model.requests().slice(from)[0]!.lastUserText).toContain('It did not reach you: it is 21 MiB, over the 20 MiB a Telegram bot may download');
    expect(tg.calls('getFile').length).toBe(before);
  });

  it('sends a document with send_file through λ outbox, once', async () => {
    writeFileSync(join(workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent you the notes.' });
    await post(textUpdate({ updateId: 301, chatId: 5001, fromId: 5001, text: 'send me the notes' }));
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'Sent you the notes.'), { timeout: 20_000 }).toBe(true);
    const docs = tg.calls('sendDocument');
    expect(docs).toHaveLength(1);
    expect(docs[0]!.params).toMatchObject({ chat_id: 5001 });
    expect(docs[0]!.params.document as UploadedPart).toMatchObject({ filename: 'notes.txt', size: 9, sha256: sha(Buffer.from('the notes')) });
  });

  it('refuses a forged file envelope naming another agent’s key into the sender’s outbox DLQ, sending nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'media/agents/grif/out/r/secret.pdf', Body: 'grif only', ContentType: 'application/pdf' }));
    const sqs = new SQSClient(aws);
    const before = tg.calls('sendDocument').length;
    const forged = {
      v: PROTOCOL_VERSION,
      kind: 'file',
      id: 'tg.fran.301.forged',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      inboundId: 'tg.fran.301',
      ts: 1,
      key: 'agents/grif/out/r/secret.pdf',
      fileKind: 'document',
      fileName: 'secret.pdf',
      mimeType: 'application/pdf',
      size: 9,
    };
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: fleet.queues.fran!.outbox,
        MessageBody: JSON.stringify(forged),
        MessageGroupId: 'agent:fran:main',
        MessageDeduplicationId: forged.id,
      }),
    );
    let reason: string | undefined;
    await expect
      .poll(
        async () => {
          const { Messages } = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: fleet.queues.fran!.outboxDlq, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }),
          );
          const m = Messages?.find((x) => x.Body?.includes('tg.fran.301.forged'));
          reason = m?.MessageAttributes?.reason?.StringValue;
          return m !== undefined;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(reason).toMatch(/^MEDIA_NOT_OWNED: key "agents\/grif\/out\/r\/secret\.pdf" is not under the sender's own prefix agents\/fran\/out\//);
    expect(tg.calls('sendDocument').length).toBe(before);
  });

  it('lands a document from S3 in the workspace, where the read tool reads it', async () => {
    const doc = Buffer.from('the budget review moved to Friday');
    const file = tg.addFile(TOKEN, doc, 'documents/file_9.txt');
    const path = `inbox/${today()}/budget.txt`;
    model.script({ toolCalls: [{ name: 'read', arguments: { path } }] }, { text: 'The review is on Friday.' });
    const from = model.requests().length;
    expect((await post(mediaUpdate(304, { document: { ...file, file_name: 'budget.txt', mime_type: 'text/plain' } }))).statusCode).toBe(200);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'The review is on Friday.'), { timeout: 20_000 }).toBe(true);
    const [first, second] = model.requests().slice(from);
    expect(first!.lastUserText).toContain(`saved at ${path} in your workspace; read it with your file tools.`);
    // The read tool's result, in the request that follows the tool call, holds the document's text.
    const toolResults = (second!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool');
    expect(JSON.stringify(toolResults.at(-1)!.content)).toContain('the budget review moved to Friday');
    expect(readFileSync(join(workspace, path))).toEqual(doc);
  });

  it('gives a text-only model (grif’s, one imageModels does not list) a note with the photo’s workspace path, no image part', async () => {
    const grifWorkspace = tempDir('cf-media-aws-grif-');
    grif = startRuntime(runtimeEnv('grif', grifWorkspace));
    await grif.waitFor((l) => l.msg === 'ready');
    const jpeg = Buffer.from('\xff\xd8\xff\xe0 for grif', 'latin1');
    const file = tg.addFile(GRIF_TOKEN, jpeg, 'photos/file_10.jpg');
    model.script({ text: 'I cannot see pictures.' });
    const from = model.requests().length;
    const update = mediaUpdate(305, { photo: [{ ...file, width: 10, height: 10 }] });
    expect((await post(update, 'grif')).statusCode).toBe(200);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === 'I cannot see pictures.'), { timeout: 20_000 }).toBe(true);
    const request = model.requests().slice(from)[0]!;
    expect(request.images).toEqual([]);
    expect(request.lastUserText).toMatch(
      new RegExp(`\\[The user sent a photo \\(image/jpeg, ${jpeg.length} bytes\\), saved at inbox/${today()}/file_10\\.jpg; this model cannot see images`),
    );
    expect(readFileSync(join(grifWorkspace, `inbox/${today()}/file_10.jpg`))).toEqual(jpeg);
  });

  it('sends a photo and a document with send_file exactly once each although the runtime is SIGKILLed after sending them', async () => {
    // First attempt: both files go out, then the model hangs and the runtime is killed mid-turn.
    const files = scriptChartAndFigures(model, workspace);
    const from = model.requests().length;
    const [photos, documents] = [tg.calls('sendPhoto').length, tg.calls('sendDocument').length];
    expect((await post(textUpdate({ updateId: 306, chatId: 5001, fromId: 5001, text: CHART_ASK }))).statusCode).toBe(200);
    await tg.waitForCalls('sendPhoto', photos + 1, 30_000);
    await tg.waitForCalls('sendDocument', documents + 1, 30_000);
    // Killed while the model is asked what to say after the files went out: the turn is not
    // recorded and its message not deleted, so a new runtime gets it again and redoes it.
    await model.waitForRequests(from + 2, 30_000);
    await runtime.kill('SIGKILL');
    runtime = startRuntime(franEnv);
    await runtime.waitFor((l) => l.msg === 'ready');
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === CHART_ANSWER), { timeout: 30_000 }).toBe(true);
    expectEachFileOnce({ model, tg, chatId: 5001, requestsFrom: from, photosFrom: photos, documentsFrom: documents, ...files });
    expect(tg.calls('sendMessage').filter((c) => c.params.text === CHART_ANSWER)).toHaveLength(1);
  });
});
