// Media through the control plane (#16), against the fake Bot API on 127.0.0.1 (its real wire
// format: getFile, the file download path, multipart sendPhoto/sendDocument/sendVoice): an attachment is
// fetched with the bot's token and kept under the receiving agent's own in/ prefix; a file an
// agent sends goes out once, from its own out/ prefix only.
import { PROTOCOL_VERSION, type OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { InMemoryInboundOrigins } from '../../shared/adapters/memory/in-memory-state.ts';
import { TelegramAccounts } from '../../shared/adapters/telegram/telegram-accounts.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';
import { TELEGRAM_DOWNLOAD_LIMIT_BYTES, type MediaRef } from '../../shared/media/media-ref.ts';
import { sendFileTool } from '../../runtime-image/src/tools/send-file-tool.ts';
import { start, type FakeTelegram, type UploadedPart } from '../support/fake-telegram.ts';
import { memoryWebhook, WEBHOOK_SECRET } from '../support/memory-webhook.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { memoryOutboxDeps } from '../support/outbox-deps.ts';

const TOKEN = '1000002:fran-token-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
let tg: FakeTelegram;

beforeAll(async () => {
  tg = await start({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
});
afterAll(() => tg.close());

function fleet(): { config: FleetConfig; telegram: TelegramAccounts } {
  const config = loadConfigFile('clawfleet.json');
  config.channels.telegram!.allowFrom = ['4242'];
  config.channels.telegram!.apiRoot = tg.url;
  const telegram = new TelegramAccounts({ config, secrets: { get: async () => ({ FRAN_BOT_TOKEN: TOKEN }) }, where: 'in the test' });
  return { config, telegram };
}

function webhook() {
  const { config, telegram } = fleet();
  const store = new InMemoryMediaStore();
  const { deps, sent, queued } = memoryWebhook(config, { media: { store, fetchFile: (a, f, m) => telegram.fetchFile(a, f, m) } });
  const post = (updateId: number, fields: Record<string, unknown>) =>
    handleTelegramWebhook(
      {
        accountId: 'fran',
        secretToken: WEBHOOK_SECRET,
        body: JSON.stringify({
          update_id: updateId,
          message: { message_id: 3, date: 1_764_000_000, chat: { id: 4242, type: 'private' }, from: { id: 4242, is_bot: false, first_name: 'Ann' }, ...fields },
        }),
      },
      deps,
    );
  return { deps, store, sent, post, queued };
}

describe('inbound media (webhook)', () => {
  it('fetches a photo through the bot and keeps it under the agent’s in/ prefix; the envelope names it, never the token', async () => {
    const { post, queued, store } = webhook();
    const jpeg = Buffer.from('\xff\xd8\xff\xe0 a tiny jpeg', 'latin1');
    const small = tg.addFile(TOKEN, Buffer.from('thumb'), 'photos/file_s.jpg');
    const big = tg.addFile(TOKEN, jpeg, 'photos/file_9.jpg');
    const res = await post(21, {
      photo: [
        { ...small, width: 90, height: 68 },
        { ...big, width: 1280, height: 960 },
      ],
      caption: 'what is this?',
    });
    expect(res.status).toBe(200);
    const [envelope] = queued();
    expect(envelope).toMatchObject({
      text: 'what is this?',
      media: [{ kind: 'photo', key: 'agents/fran/in/tg.fran.21/file_9.jpg', mimeType: 'image/jpeg', size: jpeg.length, width: 1280, height: 960 }],
    });
    expect(JSON.stringify(envelope)).not.toContain(TOKEN.split(':')[1]);
    expect(Buffer.from(store.objects.get('agents/fran/in/tg.fran.21/file_9.jpg')!.bytes)).toEqual(jpeg);
    // The largest size was fetched, and only it.
    expect(tg.calls('getFile').at(-1)!.params).toEqual({ file_id: big.file_id });
  });

  it('keeps a document under its own name and type, and does not fetch it again for a retried update', async () => {
    const { post, queued, store } = webhook();
    const pdf = Buffer.from('%PDF-1.4 report');
    const file = tg.addFile(TOKEN, pdf, 'documents/file_3.pdf');
    const before = tg.calls('getFile').length;
    await post(22, { document: { ...file, file_name: 'Q3 report.pdf', mime_type: 'application/pdf' } });
    expect((await post(22, { document: { ...file, file_name: 'Q3 report.pdf', mime_type: 'application/pdf' } })).body).toMatchObject({ duplicate: true });
    expect(tg.calls('getFile').length - before).toBe(1);
    expect(queued()).toHaveLength(1);
    expect(queued()[0]).toMatchObject({
      text: '',
      media: [{ kind: 'document', key: 'agents/fran/in/tg.fran.22/Q3_report.pdf', fileName: 'Q3 report.pdf', mimeType: 'application/pdf' }],
    });
    expect(store.objects.get('agents/fran/in/tg.fran.22/Q3_report.pdf')!.mimeType).toBe('application/pdf');
  });

  it('fetches a round video, a video, an animation and a sticker too, each under its own kind; a sticker’s emoji is the message text', async () => {
    const { post, queued } = webhook();
    const mp4 = tg.addFile(TOKEN, Buffer.from('....ftypmp42'), 'videos/file_5.mp4');
    const tgs = tg.addFile(TOKEN, Buffer.from('gzip lottie'), 'stickers/file_6.tgs');
    await post(31, { video_note: { ...mp4, length: 240, duration: 7 } });
    await post(32, { video: { ...mp4, width: 1280, height: 720, duration: 12, mime_type: 'video/mp4' }, caption: 'look' });
    await post(33, { animation: { ...mp4, width: 320, height: 240, duration: 2, file_name: 'dance.mp4', mime_type: 'video/mp4' }, document: mp4 });
    await post(34, { sticker: { ...tgs, width: 512, height: 512, is_animated: true, is_video: false, type: 'regular', emoji: '😂' } });
    expect(
      queued().map((e) => ({
        text: e.text,
        media: (e.media as MediaRef[]).map(({ kind, key, mimeType, durationSeconds }) => ({ kind, key, mimeType, durationSeconds })),
      })),
    ).toEqual([
      { text: '', media: [{ kind: 'video_note', key: 'agents/fran/in/tg.fran.31/round-video.mp4', mimeType: 'video/mp4', durationSeconds: 7 }] },
      { text: 'look', media: [{ kind: 'video', key: 'agents/fran/in/tg.fran.32/video.mp4', mimeType: 'video/mp4', durationSeconds: 12 }] },
      { text: '', media: [{ kind: 'animation', key: 'agents/fran/in/tg.fran.33/dance.mp4', mimeType: 'video/mp4', durationSeconds: 2 }] },
      {
        text: '😂',
        media: [{ kind: 'sticker', key: 'agents/fran/in/tg.fran.34/sticker.tgs', mimeType: 'application/x-tgsticker', durationSeconds: undefined }],
      },
    ]);
  });

  it('asks the dedupe table once per update with an attachment (a retry too), not once before the fetch and again before queueing', async () => {
    const { post, deps } = webhook();
    const dedupe = deps.dedupe;
    let asked = 0;
    deps.dedupe = { seen: (id) => (asked++, dedupe.seen(id)), remember: (id, until) => dedupe.remember(id, until) };
    const file = tg.addFile(TOKEN, Buffer.from('%PDF-1.4 once'), 'documents/file_4.pdf');
    const update = { document: { ...file, file_name: 'once.pdf', mime_type: 'application/pdf' } };
    expect((await post(23, update)).body).toMatchObject({ ok: true, envelopeId: 'tg.fran.23' });
    expect(asked).toBe(1);
    expect((await post(23, update)).body).toMatchObject({ duplicate: true });
    expect(asked).toBe(2);
  });

  it('answers a file over the 20 MB download limit with a note to the agent and to the user, without fetching it', async () => {
    const { post, queued, sent, store } = webhook();
    const before = tg.calls('getFile').length;
    await post(23, {
      document: { file_id: 'huge', file_unique_id: 'h', file_size: TELEGRAM_DOWNLOAD_LIMIT_BYTES + 1, file_name: 'film.mkv' },
      caption: 'watch this',
    });
    expect(tg.calls('getFile').length).toBe(before);
    expect(store.objects.size).toBe(0);
    const [envelope] = queued();
    expect(envelope!.media).toBeUndefined();
    expect(envelope!.text).toMatch(
      /^\[The user sent a file "film\.mkv".*It did not reach you: it is 20 MiB, over the 20 MiB a Telegram bot may download\. Say so if it matters\.\]\nwatch this$/,
    );
    expect(sent.map((s) => s.text)).toEqual([expect.stringMatching(/over the 20 MiB a Telegram bot may download, so your agent did not get it/)]);
  });

  it('stops reading a download that runs past the limit although Telegram declared no size', async () => {
    const { telegram } = fleet();
    const file = tg.addFile(TOKEN, Buffer.alloc(2048, 1), 'documents/undeclared.bin');
    await expect(telegram.fetchFile('fran', file.file_id, 1024)).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE' });
    await expect(telegram.fetchFile('fran', file.file_id, 4096)).resolves.toMatchObject({ filePath: 'documents/undeclared.bin' });
  });

  it('answers 503 (Telegram retries) while Telegram’s file server fails, never logging the bot token', async () => {
    const { post, queued, deps } = webhook();
    const file = tg.addFile(TOKEN, Buffer.from('x'), 'documents/flaky.txt');
    tg.failNext('getFile', { error_code: 502, description: 'Bad Gateway' });
    expect((await post(26, { document: { ...file, file_name: 'flaky.txt' } })).status).toBe(503);
    expect(queued()).toHaveLength(0);
    const lines = JSON.stringify((deps.log as ReturnType<typeof memoryLogger>).lines);
    expect(lines).toContain('attachment not fetched; Telegram will retry');
    expect(lines).not.toContain(TOKEN.split(':')[1]);
    // Telegram's retry, once it works, queues the message with its file.
    expect((await post(26, { document: { ...file, file_name: 'flaky.txt' } })).status).toBe(200);
    expect(queued()[0]).toMatchObject({ media: [{ kind: 'document', fileName: 'flaky.txt' }] });
  });

  it('answers 503 (Telegram retries) when the store fails, and queues nothing', async () => {
    const { post, queued, store } = webhook();
    store.put = async () => Promise.reject(new Error('SlowDown'));
    const file = tg.addFile(TOKEN, Buffer.from('ogg'), 'voice/file_1.oga');
    expect((await post(24, { voice: { ...file, duration: 3 } })).status).toBe(503);
    expect(queued()).toHaveLength(0);
  });

  it('tells the agent when Telegram will not hand a file out (an unknown file id), and queues the message', async () => {
    const { post, queued } = webhook();
    await post(25, { voice: { file_id: 'gone', file_unique_id: 'g', duration: 2 } });
    expect(queued()[0]!.text).toMatch(/^\[The user sent a voice message \(2 s\)\. It did not reach you: Telegram would not hand the file out/);
  });
});

describe('outbound files (outbox)', () => {
  const arn = (agent: string) => `arn:aws:sqs:us-east-1:000000000000:demo-outbox-${agent}.fifo`;
  function outbox() {
    const { config, telegram } = fleet();
    const store = new InMemoryMediaStore();
    const origins = new InMemoryInboundOrigins(() => 5_000);
    const ann = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };
    void origins.put({ id: 'tg.fran.7', agentId: 'fran', sessionKey: 'agent:fran:main', target: ann, createdAt: 1, expiresAt: 1_000_000 });
    const { deps, dlq } = memoryOutboxDeps({
      config,
      origins,
      channel: (t) => telegram.sender((t as { accountId: string }).accountId),
      media: store,
      clock: { now: () => 5_000 },
    });
    const file = (over: Record<string, unknown> = {}, agent = 'fran') => ({
      source: arn(agent),
      messageId: 'm1',
      body: JSON.stringify({
        v: PROTOCOL_VERSION,
        kind: 'file',
        id: 'tg.fran.7.req.1',
        agentId: 'fran',
        sessionKey: 'agent:fran:main',
        inboundId: 'tg.fran.7',
        ts: 1,
        key: 'agents/fran/out/tg.fran.7.req.1/chart.png',
        fileKind: 'photo',
        fileName: 'chart.png',
        mimeType: 'image/png',
        size: 9,
        caption: 'the chart',
        ...over,
      }),
    });
    return { deps, store, dlq, file };
  }
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('sends a photo from the agent’s own out/ prefix as a multipart sendPhoto, once however often the record comes', async () => {
    const { deps, store, file } = outbox();
    const png = Buffer.from('\x89PNG chart', 'latin1');
    await store.put('agents/fran/out/tg.fran.7.req.1/chart.png', png, 'image/png');
    const before = tg.calls('sendPhoto').length;
    await processOutboxRecord(file(), deps);
    await processOutboxRecord(file(), deps);
    const calls = tg.calls('sendPhoto').slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params).toMatchObject({ chat_id: 4242, caption: 'the chart' });
    expect(calls[0]!.params.photo as UploadedPart).toEqual({ filename: 'chart.png', size: png.length, type: 'image/png', sha256: sha(png) });
  });

  it('sends a document with sendDocument', async () => {
    const { deps, store, file } = outbox();
    await store.put('agents/fran/out/r2/notes.txt', Buffer.from('notes'), 'text/plain');
    const before = tg.calls('sendDocument').length;
    await processOutboxRecord(
      file({
        id: 'tg.fran.7.req.2',
        key: 'agents/fran/out/r2/notes.txt',
        fileKind: 'document',
        fileName: 'notes.txt',
        mimeType: 'text/plain',
        caption: undefined,
      }),
      deps,
    );
    expect(tg.calls('sendDocument').slice(before)).toEqual([
      expect.objectContaining({ params: { chat_id: 4242, document: expect.objectContaining({ filename: 'notes.txt', size: 5 }) } }),
    ]);
  });

  it('sends a file send_file was told is a voice message as a multipart sendVoice with its bytes, once', async () => {
    const { deps, store } = outbox();
    const workspace = tempDir('cf-voice-');
    // An .m4a is inferred as audio: the kind given wins, so it plays as a voice message.
    const voice = Buffer.from('OggS a voice reply');
    writeFileSync(join(workspace, 'reply.m4a'), voice);
    const tool = sendFileTool('fran', workspace, store, { now: () => 5_000 });
    const envelopes: OutboundEnvelope[] = [];
    const ctx = {
      signal: new AbortController().signal,
      sessionKey: 'agent:fran:main',
      inboundId: 'tg.fran.7',
      request: async (make: (id: string) => OutboundEnvelope) => {
        const envelope = make('tg.fran.7.req.voice');
        envelopes.push(envelope);
        return envelope.id;
      },
    };
    const parsed = tool.parse({ path: 'reply.m4a', kind: 'voice', caption: 'listen' });
    expect(parsed.ok).toBe(true);
    expect((await tool.run((parsed as { value: unknown }).value, ctx)).isError).toBeUndefined();
    expect(envelopes).toEqual([expect.objectContaining({ kind: 'file', fileKind: 'voice', fileName: 'reply.m4a', size: voice.length })]);
    const [voices, audios] = [tg.calls('sendVoice').length, tg.calls('sendAudio').length];
    const record = { source: arn('fran'), messageId: 'm-voice', body: JSON.stringify(envelopes[0]) };
    await processOutboxRecord(record, deps);
    await processOutboxRecord(record, deps);
    const calls = tg.calls('sendVoice').slice(voices);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params).toMatchObject({ chat_id: 4242, caption: 'listen' });
    expect(calls[0]!.params.voice as UploadedPart).toEqual({ filename: 'reply.m4a', size: voice.length, type: 'audio/mp4', sha256: sha(voice) });
    expect(tg.calls('sendAudio').length).toBe(audios);
  });

  it('sends a video with sendVideo and an animation with sendAnimation, so the chat plays them', async () => {
    const { deps, store, file } = outbox();
    const mp4 = Buffer.from('....ftypmp42 clip');
    await store.put('agents/fran/out/r3/clip.mp4', mp4, 'video/mp4');
    await store.put('agents/fran/out/r4/dance.gif', Buffer.from('GIF89a'), 'image/gif');
    const [videos, animations] = [tg.calls('sendVideo').length, tg.calls('sendAnimation').length];
    const clip = {
      id: 'tg.fran.7.req.3',
      key: 'agents/fran/out/r3/clip.mp4',
      fileKind: 'video',
      fileName: 'clip.mp4',
      mimeType: 'video/mp4',
      size: mp4.length,
    };
    await processOutboxRecord(file(clip), deps);
    await processOutboxRecord(
      file({ id: 'tg.fran.7.req.4', key: 'agents/fran/out/r4/dance.gif', fileKind: 'animation', fileName: 'dance.gif', mimeType: 'image/gif', size: 6 }),
      deps,
    );
    expect(tg.calls('sendVideo').slice(videos)).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({ chat_id: 4242, video: expect.objectContaining({ filename: 'clip.mp4', sha256: sha(mp4) }) }),
      }),
    ]);
    expect(tg.calls('sendAnimation').slice(animations)).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ chat_id: 4242, animation: expect.objectContaining({ filename: 'dance.gif', size: 6 }) }) }),
    ]);
  });

  it.each([
    ['another agent’s out/ prefix', 'agents/grif/out/x/secret.pdf'],
    ['another agent’s in/ prefix', 'agents/grif/in/tg.grif.1/photo.jpg'],
    ['its own in/ prefix (only out/ is sent)', 'agents/fran/in/tg.fran.7/photo.jpg'],
  ])('refuses a forged envelope naming %s into the sender’s DLQ, sending nothing', async (_what, key) => {
    const { deps, store, dlq, file } = outbox();
    await store.put(key, Buffer.from('not yours'), 'application/pdf');
    const before = tg.calls().length;
    await processOutboxRecord(file({ key }), deps);
    expect(tg.calls().length).toBe(before);
    expect(dlq.letters).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^MEDIA_NOT_OWNED: key ".*" is not under the sender's own prefix agents\/fran\/out\//) }),
    ]);
  });

  it('refuses a file past the 50 MB upload limit, and one that is not kept, with their reasons', async () => {
    const { deps, dlq, file } = outbox();
    await processOutboxRecord(file({ size: 50 * 1024 * 1024 + 1 }), deps);
    await processOutboxRecord(file({ id: 'tg.fran.7.req.9' }), deps);
    expect(dlq.letters.map((l) => l.reason.split(':')[0])).toEqual(['MEDIA_TOO_LARGE', 'MEDIA_MISSING']);
  });

  it('refuses a file for an inbound that was not this agent’s', async () => {
    const { deps, store, dlq, file } = outbox();
    await store.put('agents/grif/out/r/x.png', Buffer.from('x'), 'image/png');
    await processOutboxRecord(file({ agentId: 'grif', key: 'agents/grif/out/r/x.png', sessionKey: 'agent:grif:main' }, 'grif'), deps);
    expect(dlq.letters[0]!.reason).toMatch(/^ORIGIN_NOT_OWNED: inbound "tg.fran.7" was queued for another agent/);
  });

  it('sends a picture Telegram refuses as a photo as a document instead', async () => {
    const { deps, store, file, dlq } = outbox();
    await store.put('agents/fran/out/tg.fran.7.req.1/chart.png', Buffer.from('png'), 'image/png');
    tg.failNext('sendPhoto', { error_code: 400, description: 'Bad Request: PHOTO_INVALID_DIMENSIONS' });
    const before = tg.calls('sendDocument').length;
    await processOutboxRecord(file(), deps);
    expect(tg.calls('sendDocument').slice(before)).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ caption: 'the chart', document: expect.objectContaining({ filename: 'chart.png' }) }) }),
    ]);
    expect(dlq.letters).toEqual([]);
  });

  it('records that the user blocked the bot when Telegram refuses a file so, as a refused reply does, and drops later files to that chat', async () => {
    const { deps, store, file, dlq } = outbox();
    await deps.sessions.put({
      sessionKey: 'agent:fran:main',
      agentId: 'fran',
      target: { channel: 'telegram', accountId: 'fran', chatId: '4242' },
      updatedAt: 1,
    });
    await store.put('agents/fran/out/tg.fran.7.req.1/chart.png', Buffer.from('png'), 'image/png');
    await store.put('agents/fran/out/tg.fran.7.req.2/more.png', Buffer.from('png'), 'image/png');
    tg.failNext('sendPhoto', { error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    const before = tg.calls('sendPhoto').length;
    await processOutboxRecord(file(), deps);
    expect((await deps.sessions.get('agent:fran:main'))?.blockedAt).toBe(5_000);
    // Not parked: a blocked bot is the user's choice, not a fault.
    expect(dlq.letters).toEqual([]);
    await processOutboxRecord(file({ id: 'tg.fran.7.req.2', key: 'agents/fran/out/tg.fran.7.req.2/more.png' }), deps);
    expect(tg.calls('sendPhoto').length - before).toBe(1);
  });

  it('sends a video Telegram refuses as a video as a document instead; a voice message it refuses goes nowhere else', async () => {
    const { deps, store, file, dlq } = outbox();
    await store.put('agents/fran/out/r5/clip.mp4', Buffer.from('not really a video'), 'video/mp4');
    tg.failNext('sendVideo', { error_code: 400, description: 'Bad Request: wrong file type' });
    const before = tg.calls('sendDocument').length;
    const clip = { id: 'tg.fran.7.req.5', key: 'agents/fran/out/r5/clip.mp4', fileKind: 'video', fileName: 'clip.mp4', mimeType: 'video/mp4', size: 18 };
    await processOutboxRecord(file(clip), deps);
    expect(tg.calls('sendDocument').slice(before)).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ document: expect.objectContaining({ filename: 'clip.mp4' }) }) }),
    ]);
    expect(dlq.letters).toEqual([]);

    await store.put('agents/fran/out/r6/note.ogg', Buffer.from('OggS'), 'audio/ogg');
    tg.failNext('sendVoice', { error_code: 400, description: 'Bad Request: wrong file type' });
    const voice = { id: 'tg.fran.7.req.6', key: 'agents/fran/out/r6/note.ogg', fileKind: 'voice', fileName: 'note.ogg', mimeType: 'audio/ogg', size: 4 };
    await processOutboxRecord(file(voice), deps);
    expect(tg.calls('sendDocument').length).toBe(before + 1);
    expect(dlq.letters).toEqual([expect.objectContaining({ reason: expect.stringMatching(/^DELIVERY_REFUSED: .*wrong file type/) })]);
  });

  it('hands the record back (throws) while Telegram fails, and sends it once it recovers', async () => {
    const { deps, store, file } = outbox();
    await store.put('agents/fran/out/tg.fran.7.req.1/chart.png', Buffer.from('png'), 'image/png');
    tg.failNext('sendPhoto', { error_code: 502, description: 'Bad Gateway' });
    const before = tg.calls('sendPhoto').length;
    await expect(processOutboxRecord(file(), deps)).rejects.toThrow(/502/);
    await processOutboxRecord(file(), deps);
    expect(tg.calls('sendPhoto').length - before).toBe(2);
  });
});
