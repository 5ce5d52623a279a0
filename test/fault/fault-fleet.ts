// One fleet for a fault test, wired as test/integration/telegram-e2e.test.ts wires it:
// the real λ telegram-webhook and λ outbox handlers in this process, the agent's real
// runtime as child processes, the emulator's queues, tables and secrets, and the fake Bot
// API and model servers. Everything written where someone could read it goes into a
// SecretScan, so each test file ends by proving no secret value leaked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import type { FunctionUrlEvent } from '../../functions/function-url.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv, type AwsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startOutboxPump } from '../support/outbox-pump.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { writeFigures } from '../support/figures.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** The fleet's bot tokens and fran's model key: made up, but shaped like real ones. */
export const TOKENS = {
  jerry: '2000001:AAfault-jerry-token-00000000000000',
  fran: '2000002:AAfault-fran-token-000000000000000',
  grif: '2000003:AAfault-grif-token-000000000000000',
  ray: '2000004:AAfault-ray-token-0000000000000000',
};
export const FRAN_MODEL_KEY = 'sk-fault-fran-model-key-0123456789abcdef';
export const GRIF_MODEL_KEY = 'sk-fault-grif-model-key-not-for-fran-0000';

export interface FaultFleetOptions {
  fleet: string;
  /** Telegram user ids allowed to talk to the bots; each gets its own session (dmScope per-peer). */
  senders: number[];
  maxReceiveCount?: number;
  /** Where the handlers reach AWS (a cuttable proxy); defaults to the emulator itself. */
  handlerEndpoint?: (aws: AwsTestEnv) => string;
  /** Changes to the example config before it is parsed (fran's MCP servers, tools…). */
  edit?: (raw: Record<string, any>) => void;
  /** Extra secret values for fran's own secret (named as the config names them). */
  franSecrets?: Record<string, string>;
  /** Runtime environment overrides (CLAWFLEET_*). */
  runtimeEnv?: Record<string, string>;
  /** Gives the fleet a media bucket in the emulator's S3 (#16), as a deployed fleet has: the handlers and fran's runtime use it. */
  media?: boolean;
}

export interface FaultFleet {
  aws: AwsTestEnv;
  sqs: SQSClient;
  tg: FakeTelegram;
  model: FakeModel;
  config: FleetConfig;
  queues: ProvisionedFleet['queues'];
  scan: SecretScan;
  runtimes: RuntimeProcess[];
  /** POSTs a body to λ telegram-webhook as Telegram would (the right secret token unless told otherwise). */
  post(body: string, opts?: { accountId?: keyof typeof TOKENS; secretToken?: string }): Promise<{ statusCode: number; body: string }>;
  /** A text message from `from` to fran's bot, as a webhook body. */
  update(updateId: number, from: number, text: string): string;
  /** Starts fran's runtime (a child process, the container's entry point). */
  launch(env?: Record<string, string>): RuntimeProcess;
  /** sendMessage calls to a chat whose text is `text`. */
  sent(text: string, chatId?: number): number;
  queueDepth(url: string): Promise<number>;
  /**
   * Resolves once nothing more can reach a user: fran's inbox and outbox hold no message
   * waiting, in flight or delayed. An inbound message in flight (its runtime killed) could
   * still be redelivered and answered again, and an outbox record still sent; once both are
   * empty, every send there will be has happened. The event the tests used to wait a fixed
   * few seconds for ("nothing else arrives"), waited for until it is true.
   */
  settled(timeoutMs?: number): Promise<void>;
  /** Bodies and reasons of what sits in a DLQ (received once, left in place for later reads). */
  deadLetters(url: string): Promise<{ body: string; reason: string | undefined }[]>;
  close(): Promise<void>;
}

export async function startFaultFleet(opts: FaultFleetOptions): Promise<FaultFleet> {
  const aws = awsTestEnv();
  const scan = new SecretScan();
  const stopCapture = scan.captureStdout('test process stdout (handler logs)');
  const tg = await startTelegram({ bots: Object.values(TOKENS).map((token) => ({ token })) });
  const model = await startModel({ apiKey: FRAN_MODEL_KEY });

  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = opts.fleet;
  example.channels.telegram.apiRoot = tg.url;
  example.channels.telegram.allowFrom = opts.senders.map(String);
  example.session = { dmScope: 'per-peer' };
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  example.models.providers.anthropic.baseUrl = model.baseUrls['anthropic-messages'];
  opts.edit?.(example);
  const config = parseConfig(example);

  const franSecrets = { OPENAI_API_KEY: FRAN_MODEL_KEY, ...opts.franSecrets };
  const provisioned = await provisionFleet(
    aws,
    config,
    {
      telegram: { JERRY_BOT_TOKEN: TOKENS.jerry, FRAN_BOT_TOKEN: TOKENS.fran, GRIF_BOT_TOKEN: TOKENS.grif, RAY_BOT_TOKEN: TOKENS.ray },
      agents: { fran: franSecrets, grif: { OPENAI_API_KEY: GRIF_MODEL_KEY } },
    },
    { maxReceiveCount: opts.maxReceiveCount },
  );
  scan.addSecrets(...Object.values(TOKENS), ...Object.values(TOKENS).map(webhookSecretFor), ...Object.values(franSecrets), GRIF_MODEL_KEY);

  const mediaBucket = opts.media ? `cf-${opts.fleet}-media-${aws.accountId}` : undefined;
  if (mediaBucket) await new S3Client({ ...aws, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: mediaBucket }));
  // The handlers read their environment at module scope, as on AWS.
  Object.assign(process.env, {
    ...(mediaBucket ? { CLAWFLEET_MEDIA_BUCKET: mediaBucket } : {}),
    CLAWFLEET_CONFIG: JSON.stringify(config),
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    AWS_REGION: aws.region,
    AWS_ENDPOINT_URL: opts.handlerEndpoint?.(aws) ?? aws.endpoint,
  });
  const webhook = (await import('../../functions/telegram-webhook.ts')).handler;
  const outbox = (await import('../../functions/outbox.ts')).handler;
  const pump = startOutboxPump(
    aws,
    Object.values(provisioned.queues).map((q) => ({ url: q.outbox, arn: q.outboxArn })),
    outbox,
  );

  const workspace = tempDir(`cf-${opts.fleet}-fran-`);
  const baseEnv: Record<string, string> = {
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(config, 'fran')),
    CLAWFLEET_INBOX_URL: provisioned.queues.fran!.inbox,
    CLAWFLEET_OUTBOX_URL: provisioned.queues.fran!.outbox,
    CLAWFLEET_DLQ_URL: provisioned.queues.fran!.inboxDlq,
    CLAWFLEET_WORKSPACE: workspace,
    CLAWFLEET_VISIBILITY_SECONDS: '3',
    CLAWFLEET_WAIT_SECONDS: '1',
    CLAWFLEET_DRAIN_SECONDS: '5',
    CLAWFLEET_MODEL_RETRY_BASE_MS: '100',
    ...(mediaBucket ? { CLAWFLEET_MEDIA_BUCKET: mediaBucket } : {}),
    // As the CDK app does: the runtime knows its queue's redrive count.
    ...(opts.maxReceiveCount ? { CLAWFLEET_MAX_RECEIVE_COUNT: String(opts.maxReceiveCount) } : {}),
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    ...opts.runtimeEnv,
  };

  const sqs = new SQSClient(aws);
  const queueDepth = async (url: string) => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible) +
      Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0)
    );
  };
  const runtimes: RuntimeProcess[] = [];
  scan.addSource('runtime processes (stdout and stderr)', () => runtimes.map((r) => r.output()).join('\n'));
  scan.addSource('messages sent to users (fake Bot API)', () =>
    tg
      .calls()
      .map((c) => JSON.stringify(c.params))
      .join('\n'),
  );

  return {
    aws,
    sqs,
    tg,
    model,
    config,
    queues: provisioned.queues,
    scan,
    runtimes,
    async post(body, { accountId = 'fran', secretToken } = {}) {
      const event: FunctionUrlEvent = {
        rawPath: `/telegram/${accountId}`,
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken ?? webhookSecretFor(TOKENS[accountId]) },
        body,
        requestContext: { http: { method: 'POST' } },
      };
      const res = await webhook(event);
      scan.record('λ telegram-webhook response', res.body);
      return res;
    },
    update: (updateId, from, text) => JSON.stringify(textUpdate({ updateId, chatId: from, fromId: from, text })),
    launch(env = {}) {
      const r = startRuntime({ ...baseEnv, ...env });
      runtimes.push(r);
      return r;
    },
    sent: (text, chatId) => tg.calls('sendMessage').filter((c) => c.params.text === text && (chatId === undefined || c.params.chat_id === chatId)).length,
    queueDepth,
    async settled(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [inbox, outbox] = await Promise.all([queueDepth(provisioned.queues.fran!.inbox), queueDepth(provisioned.queues.fran!.outbox)]);
        if (inbox === 0 && outbox === 0) return;
        if (Date.now() > deadline)
          throw new Error(`not settled after ${timeoutMs} ms: ${inbox} inbound and ${outbox} outbound message(s) still queued or in flight`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async deadLetters(url) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
      );
      return Messages.map((m) => ({ body: m.Body ?? '', reason: m.MessageAttributes?.reason?.StringValue }));
    },
    async close() {
      await Promise.all(runtimes.map((r) => r.kill('SIGKILL')));
      await pump.stop();
      await tg.close();
      await model.close();
      if (mediaBucket) delete process.env.CLAWFLEET_MEDIA_BUCKET;
      stopCapture();
    },
  };
}

/** The last test of every fault and security file: nothing it wrote holds a secret value. */
export function expectNoSecretsIn(scan: SecretScan, file: string): void {
  const stats = scan.stats();
  expect(stats.secrets).toBeGreaterThan(0);
  expect(stats.lines).toBeGreaterThan(0);
  const hits = scan.hits();
  expect(hits).toEqual([]);
  writeFigures(`secret-scan-${file}`, { ...stats, hits: hits.length });
}
