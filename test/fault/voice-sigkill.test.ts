// Spoken replies on the AWS path (#31), for real: the real λ telegram-webhook and λ outbox on the
// emulator's queues, tables, secrets and S3, fran's runtime a child process (the container's entry
// point) that speaks through the fake /audio/speech with the key from its own Secrets Manager
// secret, keeps the Ogg Opus under its own prefix of the media bucket, and λ outbox sends it to the
// fake Bot API as a multipart sendVoice. The runtime is SIGKILLed while the answer is being spoken;
// the message comes back to a new runtime, which answers and speaks again: the user gets exactly
// one voice message, with the answer as its caption, and no text message besides.
import { createHash } from 'node:crypto';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEECH_OGG, startSpeech, type FakeSpeech } from '../support/fake-speech.ts';
import type { UploadedPart } from '../support/fake-telegram.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const USER = 7401;
const ASK = 'Say good morning.';
const ANSWER = 'Good **morning**, and a fine one it is.';
const TTS_KEY = 'sk-fault-tts-key-0123456789abcdef';

let f: FaultFleet;
let speech: FakeSpeech;

beforeAll(async () => {
  speech = await startSpeech({ apiKey: TTS_KEY });
  f = await startFaultFleet({
    fleet: 'sigvoice',
    senders: [USER],
    media: true,
    franSecrets: { TTS_KEY },
    edit: (raw) => {
      const fran = raw.agents.list.find((a: { id: string }) => a.id === 'fran');
      fran.tts = { auto: 'always', baseUrl: speech.url, model: 'tts-1', voice: 'alloy', apiKeySecret: 'TTS_KEY' };
    },
  });
  f.model.setResponder(() => ({ text: ANSWER }));
}, 120_000);

afterAll(async () => {
  await f?.close();
  await speech?.close();
});

describe('a spoken reply whose runtime is SIGKILLed while it is being spoken (a real child process)', () => {
  it('reaches the user as exactly one voice message, the Ogg Opus from the speech provider, captioned with the answer', { timeout: 120_000 }, async () => {
    const first = f.launch();
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    // The first synthesis never answers: the runtime is killed while it waits for it.
    speech.script({ kind: 'hang' });
    expect((await f.post(f.update(1, USER, ASK))).statusCode).toBe(200);
    await speech.waitForRequests(1, 60_000);
    expect(f.tg.calls().filter((c) => c.params.chat_id === USER && c.method !== 'setMessageReaction' && c.method !== 'sendChatAction')).toEqual([]);
    await first.kill('SIGKILL');

    // The message comes back (visibility 3 s) to the next runtime, which answers and speaks again.
    f.launch();
    await expect.poll(() => f.tg.calls('sendVoice').filter((c) => c.params.chat_id === USER).length, { timeout: 60_000, interval: 50 }).toBe(1);
    await f.settled();

    const toUser = f.tg.calls().filter((c) => c.params.chat_id === USER);
    const voices = toUser.filter((c) => c.method === 'sendVoice');
    expect(voices).toHaveLength(1);
    expect(voices[0]!.params).toMatchObject({ caption: 'Good <b>morning</b>, and a fine one it is.', parse_mode: 'HTML', duration: 1 });
    expect(voices[0]!.params.voice as UploadedPart).toEqual({
      filename: 'voice.ogg',
      size: SPEECH_OGG.byteLength,
      type: 'audio/ogg',
      sha256: createHash('sha256').update(SPEECH_OGG).digest('hex'),
    });
    // The caption carried the answer: no text message besides.
    expect(toUser.filter((c) => c.method === 'sendMessage')).toEqual([]);
    // Asked and spoken twice (the killed attempt never finished), delivered once; the key from fran's own secret.
    expect(f.model.requests().filter((q) => q.lastUserText === ASK)).toHaveLength(2);
    expect(speech.requests().map((r) => [r.authorization, r.body?.input])).toEqual([
      [`Bearer ${TTS_KEY}`, 'Good morning, and a fine one it is.'],
      [`Bearer ${TTS_KEY}`, 'Good morning, and a fine one it is.'],
    ]);
    // The voice is kept under fran's own out/ prefix of the fleet's bucket, where λ outbox read it.
    const objects = new S3Client({ ...f.aws, forcePathStyle: true });
    const key = `sigvoice/agents/fran/out/${createHash('sha256').update(SPEECH_OGG).digest('hex').slice(0, 32)}/voice.ogg`;
    const stored = await objects.send(new GetObjectCommand({ Bucket: `cf-sigvoice-media-${f.aws.accountId}`, Key: key }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(SPEECH_OGG)).toBe(true);
    // The ack reaction, put on the message when it was queued, was cleared once the answer was there.
    expect(toUser.filter((c) => c.method === 'setMessageReaction').map((c) => c.params.reaction)).toEqual([[{ type: 'emoji', emoji: '👀' }], []]);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('wrote no secret value (the speech key among them) to any log line, response or message', () => {
    expectNoSecretsIn(f.scan, 'voice-sigkill');
  });
});
