// A runtime on the emulator's queues, as ECS starts one and the control plane drives it: its
// environment written through the runtime's own contract (shared/runtime-env.ts), and a turn
// — a message into its inbox, the reply to it read from its outbox.
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { agentSecretName } from '../../shared/config/names.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { mainSessionKey } from '../../shared/routing/session-key.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { runtimeEnvironment, type RuntimeEnvVars } from '../../shared/runtime-env.ts';
import type { AwsTestEnv } from './aws.ts';
import type { AgentQueueUrls } from './provision.ts';

/** The environment of `agentId`'s runtime on its provisioned queues and the emulator's endpoint, plus `settings`. */
export function emulatorRuntimeEnv(
  aws: AwsTestEnv,
  config: FleetConfig,
  queues: AgentQueueUrls,
  agentId: string,
  settings: RuntimeEnvVars = {},
): Record<string, string> {
  const transport = {
    kind: 'aws' as const,
    inboxUrl: queues.inbox,
    outboxUrl: queues.outbox,
    dlqUrl: queues.inboxDlq,
    secretId: agentSecretName(config.fleet, agentId),
  };
  return {
    ...runtimeEnvironment(agentId, runtimeConfigFor(config, agentId), transport, { CLAWFLEET_WAIT_SECONDS: '1', ...settings }),
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
  };
}

export interface QueueReply {
  kind: 'reply';
  inReplyTo: string;
  text: string;
}

/** Puts `text` on an agent's inbox queue as message `id` to its main session, as the control plane does. */
export async function sendToMainSession(sqs: SQSClient, inboxUrl: string, agentId: string, id: string, text: string): Promise<void> {
  const sessionKey = mainSessionKey(agentId);
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: inboxUrl,
      MessageGroupId: sessionKey,
      MessageDeduplicationId: id,
      MessageBody: JSON.stringify({ v: PROTOCOL_VERSION, kind: 'message', id, agentId, sessionKey, ts: Date.now(), text, from: { channel: 'local' } }),
    }),
  );
}

/** Sends `text` to the agent's main session as message `id`; the reply to it, or undefined after `timeoutMs`. Other outbox envelopes are consumed. */
export async function askOnQueues(
  sqs: SQSClient,
  queues: AgentQueueUrls,
  agentId: string,
  id: string,
  text: string,
  timeoutMs = 20_000,
): Promise<QueueReply | undefined> {
  await sendToMainSession(sqs, queues.inbox, agentId, id, text);
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.outbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    let reply: QueueReply | undefined;
    for (const m of Messages) {
      const e = JSON.parse(m.Body!) as { kind: string; inReplyTo?: string };
      if (e.kind === 'reply' && e.inReplyTo === id) reply = e as QueueReply;
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queues.outbox, ReceiptHandle: m.ReceiptHandle! }));
    }
    if (reply) return reply;
  }
  return undefined;
}
