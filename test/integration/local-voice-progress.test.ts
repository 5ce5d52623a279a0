// Spoken replies and progress streaming in local mode (#31), end to end: `npm start`'s fleet polls
// the fake Bot API; fran's runtime (a real child process) transcribes a voice message through the
// fake transcription endpoint, speaks its answer through the fake /audio/speech with the key from
// its own secret, keeps the Ogg Opus under its own prefix of the fleet's media directory (through
// /runtime/media), and the control plane sends it as a multipart sendVoice — once, although the
// runtime is SIGKILLed while it speaks. In a group, under `streaming: "progress"`, the status of
// its work is one message, edited by the redone turn after a SIGKILL and deleted once the one
// answer is out. The dashboard's chat box shows a spoken reply as its text and the voice.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { SPEECH_OGG, startSpeech, type FakeSpeech } from '../support/fake-speech.ts';
import { start as startTelegram, textUpdate, type FakeTelegram, type UploadedPart } from '../support/fake-telegram.ts';
import { startTranscription, type FakeTranscription } from '../support/fake-transcription.ts';
import { dashboardAuth } from '../support/local-api.ts';
import { heldAnswers } from '../support/held-answers.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { mediaUpdate } from '../support/media-update.ts';

const TOKEN = '7000000031:AAlocal-voice-test-token-0123456789';
const MODEL_KEY = 'sk-test-local-voice-model-0123456789';
const STT_KEY = 'sk-test-local-voice-stt-0123456789';
const TTS_KEY = 'sk-test-local-voice-tts-0123456789';
const ANN = 42;
const GROUP = -1003100000000;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const FIXTURE: UploadedPart = { filename: 'voice.ogg', size: SPEECH_OGG.byteLength, type: 'audio/ogg', sha256: sha(SPEECH_OGG) };

let tg: FakeTelegram;
let model: FakeModel;
let stt: FakeTranscription;
let speech: FakeSpeech;
let fleet: LocalFleet;
let dir: string;
/** Each ask's model requests so far; an ask's answer may be held until the test lets it go. */
let answers: ReturnType<typeof heldAnswers>;

beforeAll(async () => {
  [tg, model, stt, speech] = await Promise.all([
    startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] }),
    startModel({ apiKey: MODEL_KEY }),
    startTranscription({ apiKey: STT_KEY }),
    startSpeech({ apiKey: TTS_KEY }),
  ]);
  answers = heldAnswers(model);
  dir = tempDir('cf-voice-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [
    {
      id: 'fran',
      name: 'Fran',
      default: true,
      tools: { media: { audio: { baseUrl: stt.url, model: 'whisper-1', apiKeySecret: 'STT_KEY' } } },
      tts: { auto: 'inbound', baseUrl: speech.url, model: 'tts-1', voice: 'alloy', apiKeySecret: 'TTS_KEY' },
    },
  ];
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
  config.channels.telegram = {
    apiRoot: tg.url,
    dmPolicy: 'allowlist',
    allowFrom: [String(ANN)],
    groups: { [String(GROUP)]: { requireMention: false } },
    streaming: 'progress',
    accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN },
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY, STT_KEY, TTS_KEY },
    }),
  );
  fleet = await startFleet({ dir, running: ['fran'] });
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close(), stt?.close(), speech?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('spoken replies in local mode', () => {
  it('answers a voice message with one voice message, although the runtime is SIGKILLed while it speaks', { timeout: 120_000 }, async () => {
    const heard = 'what is the weather like';
    const answer = 'Sunny, and **warm**.';
    answers.respond(() => ({ text: answer }));
    const ogg = Buffer.from('OggS a voice message from Ann');
    const file = tg.addFile(TOKEN, ogg, 'voice/file_1.oga');
    stt.answer({ text: heard });
    const asks = speech.requests().length;
    // The first synthesis never answers: the runtime is killed while it waits.
    speech.script({ kind: 'hang' });
    const pid = fleet.supervisor.pid('fran')!;
    tg.pushUpdate(TOKEN, mediaUpdate(100, ANN, { voice: { ...file, duration: 2, mime_type: 'audio/ogg' } }));
    await speech.waitForRequests(asks + 1, 60_000);
    process.kill(pid, 'SIGKILL');

    // The supervisor starts fran again; the message, released, is answered and spoken again.
    await expect.poll(() => tg.calls('sendVoice').filter((c) => c.params.chat_id === ANN).length, { timeout: 60_000, interval: 50 }).toBe(1);
    await expect.poll(() => speech.requests().length, { timeout: 30_000 }).toBe(asks + 2);
    const toAnn = tg.calls().filter((c) => c.params.chat_id === ANN);
    const voice = toAnn.find((c) => c.method === 'sendVoice')!;
    expect(voice.params).toMatchObject({ caption: 'Sunny, and <b>warm</b>.', parse_mode: 'HTML', duration: 1, voice: FIXTURE });
    expect(toAnn.filter((c) => c.method === 'sendMessage')).toEqual([]);
    expect(fleet.supervisor.pid('fran')).not.toBe(pid);
    // Answered twice (the killed attempt never finished), spoken twice with fran's own key, delivered once.
    expect(model.requests().filter((r) => r.lastUserText.includes(heard))).toHaveLength(2);
    expect(
      speech
        .requests()
        .slice(asks)
        .map((r) => [r.authorization, r.body?.input]),
    ).toEqual([
      [`Bearer ${TTS_KEY}`, 'Sunny, and warm.'],
      [`Bearer ${TTS_KEY}`, 'Sunny, and warm.'],
    ]);
    // Kept under fran's own prefix of the fleet's media directory.
    expect(readFileSync(join(dir, `state/media/agents/fran/out/${sha(SPEECH_OGG).slice(0, 32)}/voice.ogg`)).equals(SPEECH_OGG)).toBe(true);
  });

  it('shows a spoken reply in the dashboard’s chat box as its text and the voice, which downloads as the Ogg Opus', { timeout: 60_000 }, async () => {
    stt.answer({ text: 'read me the note' });
    answers.respond(() => ({ text: 'The note says hello.' }));
    const res = await fetch(`${fleet.url}/api/chat/fran/files?name=note.ogg`, {
      method: 'POST',
      headers: { ...dashboardAuth(fleet), 'content-type': 'audio/ogg' },
      body: Buffer.from('OggS a note dropped into the chat'),
    });
    expect(res.status).toBe(202);
    type Line = { role: string; text: string; file?: { key: string; name: string; mimeType: string; size: number } };
    const lines = async () =>
      ((await (await fetch(`${fleet.url}/api/chat/fran/messages?after=0`, { headers: dashboardAuth(fleet) })).json()) as { messages: Line[] }).messages;
    await expect.poll(async () => (await lines()).some((l) => l.role === 'agent' && l.file?.name === 'voice.ogg'), { timeout: 30_000 }).toBe(true);
    const line = (await lines()).find((l) => l.role === 'agent' && l.file?.name === 'voice.ogg')!;
    expect(line).toMatchObject({
      text: 'The note says hello.',
      file: { mimeType: 'audio/ogg', size: SPEECH_OGG.byteLength, key: expect.stringMatching(/^agents\/fran\/out\//) },
    });
    const download = await fetch(`${fleet.url}/api/chat/fran/files?key=${encodeURIComponent(line.file!.key)}`, { headers: dashboardAuth(fleet) });
    expect(Buffer.from(await download.arrayBuffer()).equals(SPEECH_OGG)).toBe(true);
  });
});

describe('progress streaming in local mode', () => {
  it('shows a group one status message, edited by the redone turn after a SIGKILL, and deletes it once the one answer is out', {
    timeout: 120_000,
  }, async () => {
    const ask = 'List the workspace for the group.';
    const status = 'Having a look.';
    const answer = 'Five files, all notes.';
    const inGroup = () => tg.calls().filter((c) => c.params.chat_id === GROUP);
    // 1. words and a tool call; 2. (first attempt) held until the test is over with it; 3. a tool call again; 4. the answer.
    answers.respond((_req, n) => (n === 1 || n === 3 ? { text: status, toolCalls: [{ name: 'list', arguments: { path: '.' } }] } : { text: answer }));
    answers.hold(ask, 2, () => false);
    const pid = fleet.supervisor.pid('fran')!;
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 200, chatId: GROUP, chatType: 'supergroup', fromId: ANN, text: ask }));
    // The status message is out while the model is asked the second time: kill -9.
    await expect.poll(() => inGroup().filter((c) => c.method === 'sendMessage').length, { timeout: 45_000, interval: 20 }).toBe(1);
    await expect.poll(() => answers.asked(ask), { timeout: 30_000, interval: 20 }).toBe(2);
    process.kill(pid, 'SIGKILL');
    const first = inGroup().find((c) => c.method === 'sendMessage')!;
    // The redone attempt answers once its own status has edited that message.
    answers.hold(ask, 4, () => inGroup().some((c) => c.method === 'editMessageText' || (c.method === 'sendMessage' && c !== first)));

    await expect.poll(() => inGroup().filter((c) => c.method === 'deleteMessage').length, { timeout: 60_000, interval: 50 }).toBe(1);
    const calls = inGroup();
    const sends = calls.filter((c) => c.method === 'sendMessage');
    expect(sends.map((c) => c.params.text)).toEqual([`${status}\n📂 <code>list</code>`, answer]);
    const edits = calls.filter((c) => c.method === 'editMessageText');
    const deletes = calls.filter((c) => c.method === 'deleteMessage');
    expect(edits.length).toBeGreaterThanOrEqual(1);
    // One status message throughout: the redone turn's statuses edited it, and it is the one deleted, after the answer.
    expect(new Set([...edits, ...deletes].map((c) => c.params.message_id)).size).toBe(1);
    expect(calls.indexOf(deletes[0]!)).toBeGreaterThan(calls.indexOf(sends[1]!));
    for (const e of edits) expect(String(e.params.text)).not.toContain(answer);
    expect(answers.asked(ask)).toBe(4);
  });
});
