// The runtime's side of media (#16), with a scripted model and the media store in memory: a
// photo reaches a model that takes images as an image (and a text-only model as a note with
// its workspace path), a voice message is transcribed by an OpenAI-compatible endpoint (a
// fake one on 127.0.0.1), a document lands in inbox/<date>/ where the file tools read it,
// and send_file puts a workspace file under the agent's own out/ prefix and asks for it to be sent.
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import type { MediaRef } from '../../shared/media/media-ref.ts';
import type { MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { openAiTranscriber } from '../../runtime-image/src/media/transcribe.ts';
import { assistantMessage, type ModelClient, type ModelRequest } from '../../runtime-image/src/model/model.ts';
import { modelForAgent } from '../../runtime-image/src/model/model-for-agent.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import EXAMPLE from '../../clawfleet.json' with { type: 'json' };
import { fileTools } from '../../runtime-image/src/tools/file-tools.ts';
import { sendFileTool } from '../../runtime-image/src/tools/send-file-tool.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { type TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { franMessage, franTurnDeps } from '../support/fran-turn.ts';
import { recordingModel, type ScriptStep } from '../support/recording-model.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** A model that answers from a script (then "ok"), records what it was asked, and sees images or not. */
const scripted = (imageInput: boolean, ...script: ScriptStep[]) => recordingModel(script, { after: () => ({ text: 'ok' }), imageInput });

const JPEG = Buffer.from('\xff\xd8\xff\xe0 pretend jpeg', 'latin1');
const TS = Date.parse('2026-03-01T10:00:00Z');

function setup(model: ModelClient, opts: { transcribe?: NonNullable<TurnDeps['media']>['transcribe']; withStore?: boolean; echo?: boolean } = {}) {
  const store = new InMemoryMediaStore();
  const clock = { now: () => TS };
  const { deps, outbox } = franTurnDeps(model, (workspace) => {
    const tools = [...fileTools(workspace), sendFileTool('fran', workspace, store, clock)];
    const media = { agentId: 'fran', workspace, store: opts.withStore === false ? undefined : store, transcribe: opts.transcribe, echoTranscript: opts.echo };
    return { clock, tools: () => tools, media };
  });
  const { workspace } = deps;
  const message = (n: number, media: MediaRef[], text = ''): MessageEnvelope => franMessage(n, text, { ts: TS, media });
  const turn = (e: MessageEnvelope) => runTurn(turnRequestFor(e), deps, new AbortController().signal);
  const sent = () => outbox.queue.bodies().map((b) => JSON.parse(b) as Record<string, unknown>);
  return { workspace, store, deps, turn, message, sent };
}

const photo = (key = 'agents/fran/in/tg.fran.1/file_9.jpg'): MediaRef => ({
  kind: 'photo',
  key,
  mimeType: 'image/jpeg',
  size: JPEG.length,
  width: 1280,
  height: 960,
});
const firstUser = (m: ModelClient & { requests: ModelRequest[] }) => m.requests[0]!.messages.at(-1) as Extract<Message, { role: 'user' }>;

describe('attachments in a turn', () => {
  it('gives a photo to a model that takes images as an image part, saved in the workspace too, and keeps no image in the transcript', async () => {
    const model = scripted(true, { text: 'A cat.' });
    const { store, turn, message, workspace, deps } = setup(model);
    await store.put('agents/fran/in/tg.fran.1/file_9.jpg', JPEG, 'image/jpeg');
    expect(await turn(message(1, [photo()], 'what is this?'))).toBe('replied');
    const content = firstUser(model).content as { type: string; text?: string; data?: string; mimeType?: string }[];
    expect(content[0]).toEqual({
      type: 'text',
      text: '[The user sent a photo; it is attached as an image, and saved at inbox/2026-03-01/file_9.jpg.]\nwhat is this?',
    });
    expect(content[1]).toEqual({ type: 'image', data: JPEG.toString('base64'), mimeType: 'image/jpeg' });
    expect(readFileSync(join(workspace, 'inbox/2026-03-01/file_9.jpg'))).toEqual(JPEG);
    const record = await deps.transcripts.find('agent:fran:main', 'tg.fran.1');
    expect(JSON.stringify(record)).not.toContain(JPEG.toString('base64'));
  });

  it('gives a text-only model a note with the photo’s workspace path instead', async () => {
    const model = scripted(false, { text: 'I cannot see it.' });
    const { store, turn, message } = setup(model);
    await store.put('agents/fran/in/tg.fran.1/file_9.jpg', JPEG, 'image/jpeg');
    await turn(message(1, [photo()]));
    expect(firstUser(model).content).toBe(
      `[The user sent a photo (image/jpeg, ${JPEG.length} bytes), saved at inbox/2026-03-01/file_9.jpg; this model cannot see images, so you cannot see it — say so if it matters.]`,
    );
  });

  it('asks the model the session chose with /model whether it sees images, not the primary', async () => {
    const textOnly = scripted(false, { text: 'switched' });
    const vision = scripted(true, { text: 'A cat.' });
    const { store, deps, message } = setup(textOnly);
    deps.models = { refs: ['openai/text-only', 'openai/vision'], forRef: (ref) => (ref === 'openai/vision' ? vision : textOnly) };
    const turn = (e: MessageEnvelope) => runTurn(turnRequestFor(e), deps, new AbortController().signal);
    await turn({ ...message(1, [], '/model openai/vision'), media: undefined, command: { name: 'model', args: 'openai/vision' } });
    await store.put('agents/fran/in/tg.fran.2/file_9.jpg', JPEG, 'image/jpeg');
    await turn(message(2, [photo('agents/fran/in/tg.fran.2/file_9.jpg')], 'what is this?'));
    expect(textOnly.requests).toHaveLength(0);
    expect((firstUser(vision).content as { type: string }[]).map((c) => c.type)).toEqual(['text', 'image']);
  });

  it('lands a document in inbox/<date>/ under its own name, where the read tool finds it', async () => {
    const model = scripted(false, { calls: [{ name: 'read', args: { path: 'inbox/2026-03-01/Q3_report.txt' } }] }, { text: 'Revenue is up.' });
    const { store, turn, message } = setup(model);
    await store.put('agents/fran/in/tg.fran.2/Q3_report.txt', Buffer.from('revenue: up 12%'), 'text/plain');
    await turn(message(2, [{ kind: 'document', key: 'agents/fran/in/tg.fran.2/Q3_report.txt', mimeType: 'text/plain', size: 15, fileName: 'Q3 report.txt' }]));
    expect(firstUser(model).content).toBe(
      '[The user sent a file "Q3 report.txt" (text/plain, 15 bytes), saved at inbox/2026-03-01/Q3_report.txt in your workspace; read it with your file tools.]',
    );
    expect(model.requests[1]!.messages.find((m) => m.role === 'toolResult')).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'revenue: up 12%' }],
    });
  });

  it('writes a redelivered message’s file once, and a different file of the same name beside it', async () => {
    const { store, turn, message, workspace } = setup(scripted(false));
    await store.put('agents/fran/in/tg.fran.3/a.txt', Buffer.from('one'), 'text/plain');
    await store.put('agents/fran/in/tg.fran.4/a.txt', Buffer.from('other'), 'text/plain');
    const doc = (n: number) => [{ kind: 'document' as const, key: `agents/fran/in/tg.fran.${n}/a.txt`, mimeType: 'text/plain', size: 3, fileName: 'a.txt' }];
    await turn(message(3, doc(3)));
    await turn(message(4, doc(4)));
    expect(readFileSync(join(workspace, 'inbox/2026-03-01/a.txt'), 'utf8')).toBe('one');
    expect(readFileSync(join(workspace, 'inbox/2026-03-01/a-2.txt'), 'utf8')).toBe('other');
  });

  it('never writes through a link planted as the inbox folder', async () => {
    const model = scripted(false);
    const { store, turn, message, workspace } = setup(model);
    const outside = tempDir('cf-outside-');
    symlinkSync(outside, join(workspace, 'inbox'));
    await store.put('agents/fran/in/tg.fran.5/x.txt', Buffer.from('x'), 'text/plain');
    await turn(message(5, [{ kind: 'document', key: 'agents/fran/in/tg.fran.5/x.txt', mimeType: 'text/plain', size: 1, fileName: 'x.txt' }]));
    expect(firstUser(model).content).toMatch(/could not be saved in your workspace \(inbox is a symbolic link, which file tools do not follow/);
  });

  it('refuses an attachment key under another agent’s prefix (a forged envelope), reading nothing', async () => {
    const model = scripted(true);
    const { store, turn, message } = setup(model);
    await store.put('agents/grif/in/tg.grif.1/secret.jpg', JPEG, 'image/jpeg');
    const reads: string[] = [];
    const get = store.get.bind(store);
    store.get = async (k) => (reads.push(k), get(k));
    await turn(message(6, [photo('agents/grif/in/tg.grif.1/secret.jpg')]));
    expect(reads).toEqual([]);
    expect(firstUser(model).content).toMatch(/it was refused: it is not kept under this agent's own prefix/);
  });

  it('says so when an attachment has expired, and when the runtime has no media store', async () => {
    const expired = scripted(true);
    await setup(expired).turn(setup(expired).message(7, [photo()]));
    expect(firstUser(expired).content).toMatch(/no longer kept \(attachments expire\)/);
    const none = scripted(true);
    const s = setup(none, { withStore: false });
    await s.turn(s.message(8, [photo()]));
    expect(firstUser(none).content).toMatch(/This runtime has no media store, so it did not reach you/);
  });
});

describe('what each other kind of attachment becomes', () => {
  const WEBP = Buffer.from('RIFF....WEBPVP8 pretend sticker', 'latin1');
  const MP4 = Buffer.from('....ftypmp42 pretend video', 'latin1');
  const at = (n: number, name: string) => `agents/fran/in/tg.fran.${n}/${name}`;

  it('tells the model plainly that it cannot watch a video, an animation or an animated sticker, each saved in the workspace', async () => {
    const model = scripted(true);
    const { store, turn, message, workspace } = setup(model);
    const refs: MediaRef[] = [
      { kind: 'video', key: at(40, 'video.mp4'), mimeType: 'video/mp4', size: MP4.length, durationSeconds: 12 },
      { kind: 'animation', key: at(40, 'dance.mp4'), mimeType: 'video/mp4', size: MP4.length, durationSeconds: 2 },
      { kind: 'sticker', key: at(40, 'sticker.tgs'), mimeType: 'application/x-tgsticker', size: 11 },
    ];
    for (const r of refs) await store.put(r.key, r.kind === 'sticker' ? Buffer.from('gzip lottie') : MP4, r.mimeType);
    await turn(message(40, refs, '😂'));
    expect(firstUser(model).content).toBe(
      [
        `[The user sent a video (12 s) (video/mp4, ${MP4.length} bytes), saved at inbox/2026-03-01/video.mp4 in your workspace; you cannot watch videos, animations or animated stickers, so say so if it matters.]`,
        `[The user sent an animation (GIF) (2 s) (video/mp4, ${MP4.length} bytes), saved at inbox/2026-03-01/dance.mp4 in your workspace; you cannot watch videos, animations or animated stickers, so say so if it matters.]`,
        '[The user sent a sticker (application/x-tgsticker, 11 bytes), saved at inbox/2026-03-01/sticker.tgs in your workspace; you cannot watch videos, animations or animated stickers, so say so if it matters.]',
        '😂',
      ].join('\n'),
    );
    expect(readFileSync(join(workspace, 'inbox/2026-03-01/video.mp4'))).toEqual(MP4);
  });

  it('tells the model it cannot watch a video sent as a file (a video/* document), not to read it with its file tools', async () => {
    const model = scripted(true);
    const { store, turn, message } = setup(model);
    const doc: MediaRef = { kind: 'document', key: at(41, 'holiday.mp4'), mimeType: 'video/mp4', size: MP4.length, fileName: 'holiday.mp4' };
    await store.put(doc.key, MP4, 'video/mp4');
    await turn(message(41, [doc]));
    expect(firstUser(model).content).toBe(
      `[The user sent a file "holiday.mp4" (video/mp4, ${MP4.length} bytes), saved at inbox/2026-03-01/holiday.mp4 in your workspace; you cannot watch videos, animations or animated stickers, so say so if it matters.]`,
    );
  });

  it('shows a picture sent as a file (an image document) to a model that takes images, under its own name', async () => {
    const model = scripted(true);
    const { store, turn, message } = setup(model);
    const png = Buffer.from('\x89PNG a screenshot', 'latin1');
    const doc: MediaRef = { kind: 'document', key: at(42, 'screen.png'), mimeType: 'image/png', size: png.length, fileName: 'screen.png' };
    await store.put(doc.key, png, 'image/png');
    await turn(message(42, [doc]));
    expect(firstUser(model).content).toEqual([
      { type: 'text', text: '[The user sent a file "screen.png"; it is attached as an image, and saved at inbox/2026-03-01/screen.png.]' },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  it('shows a still sticker to a model that takes images, as it shows a photo', async () => {
    const model = scripted(true);
    const { store, turn, message } = setup(model);
    const sticker: MediaRef = { kind: 'sticker', key: at(41, 'sticker.webp'), mimeType: 'image/webp', size: WEBP.length, width: 512, height: 512 };
    await store.put(sticker.key, WEBP, 'image/webp');
    await turn(message(41, [sticker], '👍'));
    expect(firstUser(model).content).toEqual([
      { type: 'text', text: '[The user sent a sticker; it is attached as an image, and saved at inbox/2026-03-01/sticker.webp.]\n👍' },
      { type: 'image', data: WEBP.toString('base64'), mimeType: 'image/webp' },
    ]);
  });
});

describe('which models are sent images (models.providers.<p>.imageModels; no catalogue is asked)', () => {
  const SECRETS = { OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-anthropic' };
  /** Fran's model as the runtime builds it, with `providers` merged into the example's (its own imageModels taken out: each case says its list), primary first unless `first` says. */
  const franModel = (providers: Record<string, { imageModels?: string[] }>, model?: unknown, first?: string) => {
    const raw = structuredClone(EXAMPLE) as Record<string, any>;
    for (const p of Object.values(raw.models.providers) as { imageModels?: string[] }[]) delete p.imageModels;
    for (const [p, extra] of Object.entries(providers)) Object.assign(raw.models.providers[p], extra);
    if (model) raw.agents.list.find((a: { id: string }) => a.id === 'fran').model = model;
    return modelForAgent(runtimeConfigFor(parseConfig(raw), 'fran'), SECRETS, 'clawfleet/demo/agents/fran', {}, first);
  };

  it('sends images only to a model its provider lists, or to all of a provider’s with "*"; a model the config does not list is text-only', () => {
    expect(franModel({}).imageInput).toBe(false); // no imageModels: gpt-4.1-mini gets notes
    expect(franModel({ openai: { imageModels: ['gpt-4.1-mini'] } }).imageInput).toBe(true);
    expect(franModel({ openai: { imageModels: ['*'] } }).imageInput).toBe(true);
    expect(franModel({ openai: { imageModels: ['gpt-4o'] } }).imageInput).toBe(false);
    // Another provider's "*" says nothing of this one's models.
    expect(franModel({ anthropic: { imageModels: ['*'] } }).imageInput).toBe(false);
  });

  it('the example config lists its models as taking images, so a photo reaches them on a clean clone', () => {
    const config = parseConfig(structuredClone(EXAMPLE));
    for (const agent of ['fran', 'jerry'])
      expect(modelForAgent(runtimeConfigFor(config, agent), SECRETS, `clawfleet/demo/agents/${agent}`, {}).imageInput).toBe(true);
  });

  it('asks the model a turn starts with: the primary, or the one /model chose from the fallbacks', () => {
    const model = { primary: 'openai/gpt-4.1-mini', fallbacks: ['anthropic/claude-sonnet-4-5'] };
    expect(franModel({ anthropic: { imageModels: ['claude-sonnet-4-5'] } }, model).imageInput).toBe(false);
    expect(franModel({ anthropic: { imageModels: ['claude-sonnet-4-5'] } }, model, 'anthropic/claude-sonnet-4-5').imageInput).toBe(true);
  });
});

describe('voice transcription', () => {
  let url: string;
  const seen: { auth?: string; model?: string; language?: string; file?: { name: string; size: number; type: string } }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type']! } }).formData();
    const file = form.get('file') as File;
    seen.push({
      auth: req.headers.authorization,
      model: form.get('model') as string,
      language: (form.get('language') as string) ?? undefined,
      file: { name: file.name, size: file.size, type: file.type },
    });
    if (req.url !== '/v1/audio/transcriptions') return res.writeHead(404).end();
    if (form.get('model') === 'broken')
      return res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model overloaded' } }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: ' Remind me to call Bob at five. ' }));
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const voice: MediaRef = { kind: 'voice', key: 'agents/fran/in/tg.fran.9/voice.ogg', mimeType: 'audio/ogg', size: 4, durationSeconds: 3 };

  it('makes a voice message’s transcript the message text, through an OpenAI-compatible /audio/transcriptions with the agent’s key', async () => {
    const model = scripted(false, { text: 'Will do.' });
    const { store, turn, message, sent } = setup(model, {
      transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1', apiKeySecret: 'STT_KEY', language: 'en' }, 'sk-stt-123'),
    });
    await store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await turn(message(9, [voice]));
    expect(seen.at(-1)).toEqual({ auth: 'Bearer sk-stt-123', model: 'whisper-1', language: 'en', file: { name: 'voice.ogg', size: 4, type: 'audio/ogg' } });
    expect(firstUser(model).content).toBe(
      '[The user sent a voice message (3 s), saved at inbox/2026-03-01/voice.ogg. Transcript:]\nRemind me to call Bob at five.',
    );
    expect(sent().find((e) => e.kind === 'reply')).toMatchObject({ text: 'Will do.' });
  });

  it('quotes a forwarded voice message’s transcript as someone else’s words, under the forward’s frame (#27)', async () => {
    const model = scripted(false, { text: 'Noted.' });
    const { store, turn } = setup(model, { transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1' }, undefined) });
    await store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await turn(franMessage(9, '', { ts: TS, media: [voice], forward: { from: { kind: 'user', name: 'Alice' }, text: '' } }));
    expect((firstUser(model).content as string).split('\n')).toEqual([
      "[The user forwarded a voice message (3 s), saved at inbox/2026-03-01/voice.ogg. Transcript, someone else's words:]",
      '> Remind me to call Bob at five.',
      '[Forwarded message from "Alice"]',
    ]);
  });

  it('transcribes a recording sent as a file (an audio/* document) as it does a voice message', async () => {
    const model = scripted(false, { text: 'Noted.' });
    const { store, turn, message } = setup(model, { transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1' }, undefined) });
    const memo: MediaRef = { kind: 'document', key: 'agents/fran/in/tg.fran.11/memo.m4a', mimeType: 'audio/mp4', size: 8, fileName: 'memo.m4a' };
    await store.put(memo.key, Buffer.from('....ftyp'), 'audio/mp4');
    await turn(message(11, [memo]));
    expect(seen.at(-1)?.file).toEqual({ name: 'memo.m4a', size: 8, type: 'audio/mp4' });
    expect(firstUser(model).content).toBe('[The user sent a file "memo.m4a", saved at inbox/2026-03-01/memo.m4a. Transcript:]\nRemind me to call Bob at five.');
  });

  it('transcribes a round video message as it does a voice message (its sound sent as the mp4 it is)', async () => {
    const model = scripted(false, { text: 'Bob at five, noted.' });
    const { store, turn, message } = setup(model, { transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1' }, undefined) });
    const round: MediaRef = { kind: 'video_note', key: 'agents/fran/in/tg.fran.10/round-video.mp4', mimeType: 'video/mp4', size: 8, durationSeconds: 7 };
    await store.put(round.key, Buffer.from('....ftyp'), 'video/mp4');
    await turn(message(10, [round]));
    expect(seen.at(-1)?.file).toEqual({ name: 'round-video.mp4', size: 8, type: 'video/mp4' });
    expect(firstUser(model).content).toBe(
      '[The user sent a round video message (7 s), saved at inbox/2026-03-01/round-video.mp4. Transcript:]\nRemind me to call Bob at five.',
    );
  });

  it('sends an answer to a quoted voice message whole, not in blocks, so nothing of it is said twice', async () => {
    const answer = 'First paragraph of the answer, long enough to be a block.\n\nSecond paragraph, also long enough to be one.\n\nTail';
    const model: ModelClient = {
      label: 'streaming/test',
      contextWindow: 100_000,
      imageInput: false,
      async complete(req) {
        for (let i = 1; i <= answer.length; i += 7) req.onText?.(answer.slice(0, i));
        req.onText?.(answer);
        return { ok: true, message: assistantMessage('streaming/test', [{ type: 'text', text: answer }]) };
      },
    };
    const { store, turn, message, sent } = setup(model, { transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1' }, undefined), echo: true });
    await store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await turn({ ...message(12, [voice]), stream: { mode: 'block', minIntervalMs: 1000, block: { minChars: 10, maxChars: 800 } } });
    expect(sent().filter((e) => e.kind === 'block')).toEqual([]);
    expect(
      sent()
        .filter((e) => e.kind === 'reply')
        .map((e) => e.text),
    ).toEqual([`🎤 “Remind me to call Bob at five.”\n\n${answer}`]);
  });

  it('quotes the transcript to the user above the answer where echoTranscript is set, and re-sends that same answer', async () => {
    const model = scripted(false, { text: 'Will do.' });
    const { store, turn, message, sent, deps } = setup(model, { transcribe: openAiTranscriber({ baseUrl: url, model: 'whisper-1' }, undefined), echo: true });
    await store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await turn(message(9, [voice]));
    const reply = () =>
      sent()
        .filter((e) => e.kind === 'reply')
        .map((e) => e.text);
    expect(reply()).toEqual(['🎤 “Remind me to call Bob at five.”\n\nWill do.']);
    // Recorded with the quote: a redelivery re-sends that answer, the model and the transcriber not asked again.
    expect((await deps.transcripts.find('agent:fran:main', 'tg.fran.9'))?.reply).toBe('🎤 “Remind me to call Bob at five.”\n\nWill do.');
    const heardBefore = seen.length;
    expect(await runTurn(turnRequestFor(message(9, [voice])), deps, new AbortController().signal)).toBe('resent');
    expect(model.requests).toHaveLength(1);
    expect(seen.length).toBe(heardBefore);
  });

  it('says when it cannot transcribe: no provider configured, or the provider failed (its message, never the key)', async () => {
    const none = scripted(false);
    const a = setup(none);
    await a.store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await a.turn(a.message(9, [voice]));
    expect(firstUser(none).content).toMatch(/It could not be transcribed: no transcription provider is configured \(tools\.media\.audio\)/);
    const failing = scripted(false);
    const b = setup(failing, { transcribe: openAiTranscriber({ baseUrl: url, model: 'broken' }, 'sk-stt-secret') });
    await b.store.put(voice.key, Buffer.from('OggS'), 'audio/ogg');
    await b.turn(b.message(9, [voice]));
    const text = firstUser(failing).content as string;
    expect(text).toMatch(/It could not be transcribed \(the transcription provider answered 500: model overloaded\)/);
    expect(text).not.toContain('sk-stt-secret');
  });
});

describe('send_file', () => {
  it('puts a workspace file under the agent’s own out/ prefix and sends a file envelope for the turn’s inbound', async () => {
    const model = scripted(false, { calls: [{ name: 'send_file', args: { path: 'charts/q3.png', caption: 'Q3' } }] }, { text: 'Sent.' });
    const { turn, message, workspace, store, sent } = setup(model);
    mkdirSync(join(workspace, 'charts'));
    const png = Buffer.from('\x89PNG data', 'latin1');
    writeFileSync(join(workspace, 'charts/q3.png'), png);
    await turn(message(10, [], 'send me the chart'));
    const file = sent().find((e) => e.kind === 'file')!;
    expect(file).toMatchObject({
      agentId: 'fran',
      inboundId: 'tg.fran.10',
      sessionKey: 'agent:fran:main',
      fileKind: 'photo',
      fileName: 'q3.png',
      mimeType: 'image/png',
      caption: 'Q3',
      size: png.length,
    });
    expect(file.key).toMatch(/^agents\/fran\/out\/[0-9a-f]{32}\/q3\.png$/);
    expect(Buffer.from(store.objects.get(file.key as string)!.bytes)).toEqual(png);
  });

  it('refuses a path outside the workspace, a file over 50 MB, and infers voice, video, animation and document kinds', async () => {
    const model = scripted(
      false,
      {
        calls: [
          { name: 'send_file', args: { path: '../../etc/passwd' } },
          { name: 'send_file', args: { path: 'huge.pdf' } },
          { name: 'send_file', args: { path: 'note.ogg' } },
          { name: 'send_file', args: { path: 'data.bin' } },
          { name: 'send_file', args: { path: 'clip.mp4' } },
          { name: 'send_file', args: { path: 'dance.gif' } },
          { name: 'send_file', args: { path: 'screen.mov' } },
        ],
      },
      { text: 'done' },
    );
    const { turn, message, workspace, sent } = setup(model);
    writeFileSync(join(workspace, 'note.ogg'), 'OggS');
    writeFileSync(join(workspace, 'data.bin'), 'bin');
    writeFileSync(join(workspace, 'clip.mp4'), '....ftypmp42');
    writeFileSync(join(workspace, 'dance.gif'), 'GIF89a');
    writeFileSync(join(workspace, 'screen.mov'), '....ftypqt');
    truncateSync((writeFileSync(join(workspace, 'huge.pdf'), ''), join(workspace, 'huge.pdf')), 50 * 1024 * 1024 + 1); // sparse: nothing is written
    await turn(message(11, [], 'go'));
    const results = model.requests[1]!.messages.filter((m) => m.role === 'toolResult') as { isError: boolean; content: { text: string }[] }[];
    expect(results[0]).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/climbs out of the workspace/) }] });
    expect(results[1]).toMatchObject({ isError: true, content: [{ text: 'huge.pdf is 52428801 bytes, over the 50 MiB a file sent to a chat may be' }] });
    expect(
      sent()
        .filter((e) => e.kind === 'file')
        .map((e) => [e.fileKind, e.mimeType]),
    ).toEqual([
      ['voice', 'audio/ogg'],
      ['document', 'application/octet-stream'],
      // MPEG-4 plays in the chat (sendVideo), a GIF as an animation; other video containers go as documents.
      ['video', 'video/mp4'],
      ['animation', 'image/gif'],
      ['document', 'video/quicktime'],
    ]);
  });
});
