// Media in local mode, end to end (#16): the fleet polls the fake Bot API, fetches a photo,
// voice message or document with getFile and the download path into its media directory, and
// the agent's runtime (a real child process) gets it through its own /runtime/media — a photo
// as an image part the fake model server records (a text-only model, another agent's, gets a
// note with the path), a voice message transcribed by the fake
// transcription endpoint, a document in the workspace the read tool reads. send_file goes out
// as a multipart sendPhoto and sendDocument, each once although the runtime is SIGKILLed mid-turn.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startTranscription, type FakeTranscription } from '../support/fake-transcription.ts';
import { writeAgentFile } from '../support/agent-files.ts';
import { dashboardAuth } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { CHART_ANSWER, CHART_ASK, expectEachFileOnce, scriptChartAndFigures } from '../support/send-file-twice.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { mediaUpdate as mediaUpdateIn } from '../support/media-update.ts';

const TOKEN = '7000000002:AAlocal-media-test-token-0123456789';
const MODEL_KEY = 'sk-test-local-media-0123456789abcdef';
const STT_KEY = 'sk-test-stt-0123456789';
let tg: FakeTelegram;
let model: FakeModel;
let stt: FakeTranscription;
let fleet: LocalFleet;
let dir: string;
const runtimeLines: Record<string, unknown>[] = [];
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const today = () => new Date().toISOString().slice(0, 10);

/** An update from Ann (42) carrying `fields` instead of text. */
const mediaUpdate = (updateId: number, fields: Record<string, unknown>) => mediaUpdateIn(updateId, 42, fields);

beforeAll(async () => {
  [tg, model, stt] = await Promise.all([
    startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] }),
    startModel({ apiKey: MODEL_KEY }),
    startTranscription({ apiKey: STT_KEY }),
  ]);
  dir = tempDir('cf-media-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [
    { id: 'fran', name: 'Fran', default: true, secrets: [], tools: { media: { audio: { baseUrl: stt.url, model: 'whisper-1', apiKeySecret: 'STT_KEY' } } } },
    // A model imageModels does not list: text-only.
    { id: 'ray', name: 'Ray', model: 'openai/gpt-4o-mini', secrets: [] },
  ];
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.models.providers.openai.imageModels = ['gpt-4.1-mini'];
  config.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
  config.channels.telegram = { apiRoot: tg.url, dmPolicy: 'allowlist', allowFrom: ['42'], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN },
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY, STT_KEY },
      'clawfleet/demo/agents/ray': { OPENAI_API_KEY: MODEL_KEY },
    }),
  );
  fleet = await startFleet({ dir, running: ['fran'], onRuntimeLine: (_agentId, line) => void runtimeLines.push(line) });
});

afterAll(async () => {
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close(), stt?.close()]);
});

/** The reply to Ann containing `text`, once it is sent. */
const sentTo = (text: string) =>
  expect.poll(() => tg.calls('sendMessage').some((c) => c.params.chat_id === 42 && String(c.params.text).includes(text)), { timeout: 30_000 }).toBe(true);

describe('media in local mode', () => {
  it('gives a photo to a vision model as an image part', async () => {
    const jpeg = Buffer.from('\xff\xd8\xff\xe0 a local jpeg', 'latin1');
    const file = tg.addFile(TOKEN, jpeg, 'photos/file_1.jpg');
    const from = model.requests().length;
    model.script({ text: 'A photo of a cat.' });
    tg.pushUpdate(TOKEN, mediaUpdate(200, { photo: [{ ...file, width: 800, height: 600 }], caption: 'what is this?' }));
    await sentTo('A photo of a cat.');
    const request = model.requests().slice(from)[0]!;
    expect(request.images).toEqual([{ mimeType: 'image/jpeg', size: jpeg.length, sha256: sha(jpeg) }]);
    expect(request.lastUserText).toContain('what is this?');
    // Kept under the agent's own prefix of the fleet's media directory, and in its workspace.
    expect(readFileSync(join(dir, 'state/media/agents/fran/in/tg.fran.200/file_1.jpg'))).toEqual(jpeg);
  });

  it('gives a text-only model (one imageModels does not list) a note with the picture’s workspace path instead', async () => {
    const png = Buffer.from('\x89PNG for a text-only model', 'latin1');
    model.script({ text: 'I cannot see pictures.' });
    const from = model.requests().length;
    const res = await fetch(`${fleet.url}/api/chat/ray/files?name=drop.png`, {
      method: 'POST',
      headers: { ...dashboardAuth(fleet), 'content-type': 'image/png' },
      body: png,
    });
    expect(res.status).toBe(202);
    await model.waitForRequests(from + 1, 30_000);
    const request = model.requests().slice(from)[0]!;
    expect(request.images).toEqual([]);
    expect(request.lastUserText).toMatch(
      new RegExp(
        `\\[The user sent a photo "drop\\.png" \\(image/png, ${png.length} bytes\\), saved at inbox/${today()}/drop\\.png; this model cannot see images`,
      ),
    );
    expect(readFileSync(join(dir, `state/workspaces/ray/inbox/${today()}/drop.png`))).toEqual(png);
  });

  it('transcribes a voice message with the agent’s own key and answers it', async () => {
    const ogg = Buffer.from('OggS voice bytes');
    const file = tg.addFile(TOKEN, ogg, 'voice/file_2.oga');
    stt.answer({ text: 'remind me to water the plants' });
    tg.pushUpdate(TOKEN, mediaUpdate(201, { voice: { ...file, duration: 2, mime_type: 'audio/ogg' } }));
    await sentTo('remind me to water the plants'); // the echo responder repeats the transcript
    expect(stt.requests().at(-1)).toMatchObject({
      authorization: `Bearer ${STT_KEY}`,
      model: 'whisper-1',
      file: { size: ogg.length, sha256: sha(ogg), type: 'audio/ogg' },
    });
  });

  it('lands a document in the workspace, where the read tool reads it', async () => {
    const doc = Buffer.from('the meeting moved to Thursday');
    const file = tg.addFile(TOKEN, doc, 'documents/file_3.txt');
    const path = `inbox/${today()}/minutes.txt`;
    model.script({ toolCalls: [{ name: 'read', arguments: { path } }] }, { text: 'The meeting is on Thursday.' });
    const from = model.requests().length;
    tg.pushUpdate(TOKEN, mediaUpdate(202, { document: { ...file, file_name: 'minutes.txt', mime_type: 'text/plain' } }));
    await sentTo('The meeting is on Thursday.');
    const second = JSON.stringify(model.requests().slice(from)[1]!.body);
    expect(second).toContain('the meeting moved to Thursday');
  });

  it('answers a file over Telegram’s 20 MB download limit with a note to the user, and tells the agent, fetching nothing', async () => {
    const before = tg.calls('getFile').length;
    tg.pushUpdate(TOKEN, mediaUpdate(204, { document: { file_id: 'too-big', file_unique_id: 'tb', file_size: 21 * 1024 * 1024, file_name: 'film.mkv' } }));
    await sentTo('over the 20 MiB a Telegram bot may download, so your agent did not get it');
    // The echo responder repeats what the agent was told.
    await sentTo('It did not reach you: it is 21 MiB, over the 20 MiB a Telegram bot may download');
    expect(tg.calls('getFile').length).toBe(before);
  });

  it('sends a photo and a document with send_file exactly once each although the runtime is SIGKILLed after sending them', async () => {
    // First attempt: the files go out, then the model hangs and the runtime is killed mid-turn.
    const files = scriptChartAndFigures(model, join(dir, 'state/workspaces/fran'));
    const pid = fleet.supervisor.pid('fran')!;
    const from = model.requests().length;
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 203, chatId: 42, fromId: 42, text: CHART_ASK }));
    const documents = tg.calls('sendDocument').length;
    await tg.waitForCalls('sendPhoto', 1, 30_000);
    await tg.waitForCalls('sendDocument', documents + 1, 30_000);
    // Killed while the model is asked what to say after the file went out: the turn is not recorded, so it is done again.
    await model.waitForRequests(from + 2, 30_000);
    process.kill(pid, 'SIGKILL');
    await sentTo(CHART_ANSWER);
    // No photo went out before this test: the one sent is this turn's.
    expectEachFileOnce({ model, tg, chatId: 42, requestsFrom: from, photosFrom: 0, documentsFrom: documents, ...files });
  });

  it('takes a picture dropped into the dashboard chat to the vision model, and shows a file the agent sends there', async () => {
    const png = Buffer.from('\x89PNG dropped into chat', 'latin1');
    const workspace = join(dir, 'state/workspaces/fran');
    writeAgentFile(workspace, 'reply.txt', 'a file back');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'reply.txt', caption: 'here you go' } }] }, { text: 'Done.' });
    const from = model.requests().length;
    const res = await fetch(`${fleet.url}/api/chat/fran/files?name=drop.png&caption=what%20is%20it`, {
      method: 'POST',
      headers: { ...dashboardAuth(fleet), 'content-type': 'image/png' },
      body: png,
    });
    expect(res.status).toBe(202);
    type Line = { role: string; text: string; file?: { key: string; name: string } };
    const lines = async () =>
      ((await (await fetch(`${fleet.url}/api/chat/fran/messages?after=0`, { headers: dashboardAuth(fleet) })).json()) as { messages: Line[] }).messages;
    await expect.poll(async () => (await lines()).some((l) => l.role === 'agent' && l.file?.name === 'reply.txt'), { timeout: 30_000 }).toBe(true);
    expect(model.requests().slice(from)[0]!.images).toEqual([{ mimeType: 'image/png', size: png.length, sha256: sha(png) }]);
    const sent = (await lines()).find((l) => l.file?.name === 'reply.txt')!;
    expect(sent).toMatchObject({ text: 'here you go', file: { key: expect.stringMatching(/^agents\/fran\/out\//) } });
    const download = await fetch(`${fleet.url}/api/chat/fran/files?key=${encodeURIComponent(sent.file!.key)}`, { headers: dashboardAuth(fleet) });
    expect(await download.text()).toBe('a file back');
  });
});
