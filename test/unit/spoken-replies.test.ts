// Spoken replies end to end in one process (#31): a runtime turn speaks its answer through the
// fake /audio/speech (a real Ogg Opus file), keeps it in the media store, and sends a reply that
// names it; the outbox core takes the reply as λ outbox would and the control plane's bot sends
// it to the fake Bot API as a multipart sendVoice — the text as its caption, or after it when it
// is too long for one. Exactly once however often the reply or the turn comes again; text when the
// voice cannot go; nothing at all for a voice that names another agent's file.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TtsAuto } from '../../shared/config/tts.ts';
import { PROTOCOL_VERSION, type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { speaker } from '../../runtime-image/src/speech/spoken-reply.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { chatPlane, PLANE_BOT_TOKEN, scriptedModel, type ModelStep } from '../support/chat-plane.ts';
import { SPEECH_OGG, startSpeech, type FakeSpeech } from '../support/fake-speech.ts';
import { faults, start, type FakeTelegram, type UploadedPart } from '../support/fake-telegram.ts';

const PRIVATE = '4242';
const GROUP = '-1001234';
const KEY = 'sk-test-tts-key-0123456789';
const FIXTURE: UploadedPart = {
  filename: 'voice.ogg',
  size: SPEECH_OGG.byteLength,
  type: 'audio/ogg',
  sha256: createHash('sha256').update(SPEECH_OGG).digest('hex'),
};
const never = () => new AbortController().signal;

let tg: FakeTelegram;
let speech: FakeSpeech;
beforeAll(async () => {
  [tg, speech] = await Promise.all([start({ bots: [{ token: PLANE_BOT_TOKEN, username: 'fran_bot' }] }), startSpeech({ apiKey: KEY })]);
});
afterAll(async () => {
  await Promise.all([tg?.close(), speech?.close()]);
});

/** Where the fake Bot API's record stands now: calls after it are this test's. */
const mark = () => tg.calls().length;
const callsTo = (chatId: string, from: number) =>
  tg
    .calls()
    .slice(from)
    .filter((c) => String(c.params.chat_id) === chatId);

/** A plane for `chatId` whose runtime speaks as `auto` says, with `secrets` masked; one runtime (one workspace) for all its turns. */
function voicePlane(chatId: string, auto: TtsAuto = 'always', secrets: string[] = []) {
  const p = chatPlane(tg, chatId);
  const steps: ModelStep[] = [];
  const model = scriptedModel();
  const next = model.complete.bind(model);
  const masker = secretMasker([KEY, ...secrets]);
  const voice = speaker({
    agentId: 'fran',
    tts: { baseUrl: speech.url, auto, model: 'tts-1', voice: 'alloy', apiKeySecret: 'TTS_KEY' },
    apiKey: KEY,
    store: p.media,
    masker,
    log: p.log,
  });
  const deps = p.runtime({ ...model, complete: (req) => next(req, steps.shift()) }, { speech: voice }, [KEY, ...secrets]);
  /** Runs the turn for `message`, the model answering `script` (then "ok"). */
  const turn = (message: MessageEnvelope, ...script: ModelStep[]) => {
    steps.push(...script);
    return runTurn(turnRequestFor(message), deps, never());
  };
  return { ...p, deps, model, turn };
}

const voices = (chatId: string, from: number) => callsTo(chatId, from).filter((c) => c.method === 'sendVoice');
const said = (chatId: string, from: number) => callsTo(chatId, from).map((c) => [c.method, c.params.text ?? c.params.caption]);

describe('spoken replies', () => {
  it('sends a short answer as one voice message with the text as its caption', async () => {
    const t0 = mark();
    const asked = speech.requests().length;
    const p = voicePlane(PRIVATE);
    expect(await p.turn(await p.admit(1, { text: 'good morning?' }), { text: 'Good **morning**, Ann.' })).toBe('replied');
    const calls = callsTo(PRIVATE, t0);
    expect(calls.map((c) => c.method)).toEqual(['sendVoice']);
    expect(calls[0]!.params).toEqual({ chat_id: Number(PRIVATE), voice: FIXTURE, caption: 'Good <b>morning</b>, Ann.', parse_mode: 'HTML', duration: 1 });
    // The words were spoken without their markup, with the configured model, voice and key.
    expect(speech.requests().slice(asked)).toEqual([
      {
        authorization: `Bearer ${KEY}`,
        body: { model: 'tts-1', voice: 'alloy', input: 'Good morning, Ann.', response_format: 'opus' },
        at: expect.any(Number),
      },
    ]);
    // The reply named the voice under fran's own out/ prefix, where the runtime put it.
    const reply = p.handled.find((e) => e.kind === 'reply')!;
    expect(reply).toMatchObject({
      voice: { key: expect.stringMatching(/^agents\/fran\/out\/[0-9a-f]{32}\/voice\.ogg$/), size: SPEECH_OGG.byteLength, durationSeconds: 1 },
    });
    expect(p.dlq.letters).toEqual([]);
  });

  it('sends the voice first and the text after it when the text is too long for a caption, the first message threaded as a reply is', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    p.config.channels.telegram!.replyToMode = 'first';
    const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} of a long answer.`).join(' ');
    await p.turn(await p.admit(2, { text: 'tell me a lot' }, { messageId: 77 }), { text: long });
    const calls = callsTo(PRIVATE, t0);
    expect(calls.map((c) => c.method)).toEqual(['sendVoice', 'sendMessage']);
    expect(calls[0]!.params).toEqual({
      chat_id: Number(PRIVATE),
      voice: FIXTURE,
      duration: 1,
      reply_parameters: { message_id: 77, allow_sending_without_reply: true },
    });
    expect(calls[1]!.params).toMatchObject({ text: long, parse_mode: 'HTML' });
    expect(calls[1]!.params.reply_parameters).toBeUndefined();
    // Only what fits the length cap was spoken: up to a sentence end within 1500 characters.
    const spoken = String(speech.requests().at(-1)!.body!.input);
    expect(spoken.length).toBeLessThanOrEqual(1_500);
    expect(spoken.length).toBeGreaterThan(1_400);
    expect(spoken).toMatch(/long answer\.$/);
    expect(long.startsWith(spoken)).toBe(true);
  });

  it('puts the buttons under the caption of a voice message that carries the whole text', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    await p.turn(await p.admit(3), { calls: [{ name: 'reply_buttons', args: { rows: [[{ text: 'Yes', data: 'yes' }]] } }] }, { text: 'Shall I?' });
    const calls = callsTo(PRIVATE, t0);
    expect(calls.map((c) => c.method)).toEqual(['sendVoice']);
    expect(calls[0]!.params).toMatchObject({ caption: 'Shall I?', reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] } });
  });

  it('sends the voice once however often the reply comes, and a redelivered turn re-sends the same voice without speaking again', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    const message = await p.admit(4);
    await p.turn(message, { text: 'Once only.' });
    const reply = p.handled.find((e) => e.kind === 'reply')!;
    // λ outbox handed the same record again, twice.
    await p.deliver(reply);
    await p.deliver(reply);
    // The runtime died after answering and before deleting the message: the next attempt finds the turn recorded.
    const asked = speech.requests().length;
    const modelCalls = p.model.calls;
    expect(await p.turn(message, { text: 'never asked' })).toBe('resent');
    expect(p.model.calls).toBe(modelCalls);
    expect(speech.requests().length).toBe(asked);
    const replies = p.handled.filter((e) => e.kind === 'reply');
    expect(replies).toHaveLength(2);
    expect(replies[1]).toEqual(replies[0]);
    expect(voices(PRIVATE, t0)).toHaveLength(1);
    expect(callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage')).toEqual([]);
  });

  it('hands the reply back on a 429 or a 5xx from sendVoice, its claim released, and sends the voice once when it comes again', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    const message = await p.admit(40);
    // The turn's own delivery meets a 429; λ outbox's next receives meet a 502, then go through.
    tg.failNext('sendVoice', faults.tooManyRequests(1));
    await expect(p.turn(message, { text: 'Patience.' })).rejects.toMatchObject({ name: 'RetryLaterError', seconds: 1 });
    expect(p.handled.some((e) => e.kind === 'reply')).toBe(false);
    // The turn was recorded before its reply went out: the redelivered message re-sends the reply as it was.
    tg.failNext('sendVoice', { error_code: 502, description: 'Bad Gateway' });
    await expect(p.turn(message)).rejects.toThrow(/Telegram sendVoice failed: 502/);
    expect(await p.turn(message)).toBe('resent');
    expect(said(PRIVATE, t0)).toEqual([
      ['sendVoice', 'Patience.'],
      ['sendVoice', 'Patience.'],
      ['sendVoice', 'Patience.'],
    ]);
    // Two refused, one delivered: the ledger holds it as delivered, so a fourth delivery sends nothing.
    const last = p.handled.find((e) => e.kind === 'reply')!;
    await p.deliver(last);
    expect(voices(PRIVATE, t0)).toHaveLength(3);
    expect(speech.requests().filter((r) => r.body?.input === 'Patience.')).toHaveLength(1);
  });

  it('answers in text alone, saying nothing odd, when the speech provider fails', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    speech.script({ kind: 'error', status: 503, message: 'overloaded' });
    await p.turn(await p.admit(5), { text: 'Still here.' });
    expect(said(PRIVATE, t0)).toEqual([['sendMessage', 'Still here.']]);
    expect(p.handled.find((e) => e.kind === 'reply')).not.toHaveProperty('voice');
  });

  it('sends the text under the same key when the chat takes no voice messages, and nothing more on redelivery', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    tg.failNext('sendVoice', faults.voiceForbidden());
    await p.turn(await p.admit(6), { text: 'Text it is.' });
    await p.deliver(p.handled.find((e) => e.kind === 'reply')!);
    expect(said(PRIVATE, t0)).toEqual([
      ['sendVoice', 'Text it is.'],
      ['sendMessage', 'Text it is.'],
    ]);
    expect(p.log.lines.find((l) => String(l.msg).startsWith('voice not sent'))?.msg).toBe(
      'voice not sent: the chat takes no voice messages; the reply goes as text',
    );
  });

  it('sends the text when the voice is gone from the media store (expired before a late delivery)', async () => {
    const p = voicePlane(PRIVATE);
    await p.turn(await p.admit(7), { text: 'Said long ago.' });
    const reply = p.handled.find((e) => e.kind === 'reply')!;
    p.media.objects.clear();
    const t0 = mark();
    await p.deliver({ ...reply, id: 'tg.fran.7.reply.late' });
    expect(said(PRIVATE, t0)).toEqual([['sendMessage', 'Said long ago.']]);
  });

  it('finishes a group’s preview with the text and sends the voice after it', async () => {
    const p = voicePlane(GROUP);
    // The answer was streamed: its preview message is in the chat already.
    const preview = (await fetch(`${tg.url}/bot${PLANE_BOT_TOKEN}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: Number(GROUP), text: 'Here is' }),
    }).then((r) => r.json())) as { result: { message_id: number } };
    const messageId = preview.result.message_id;
    const t0 = mark();
    await p.turn(await p.admit(8, {}, { preview: { messageId } }), { text: 'Here is the answer.' });
    const calls = callsTo(GROUP, t0);
    expect(calls.map((c) => c.method)).toEqual(['editMessageText', 'sendVoice']);
    expect(calls[0]!.params).toMatchObject({ message_id: messageId, text: 'Here is the answer.' });
    expect(calls[1]!.params).toEqual({ chat_id: Number(GROUP), voice: FIXTURE, duration: 1 });
  });

  it('sends the voice once when the reply comes again after its text finished the preview but before its voice went', async () => {
    const p = voicePlane(GROUP);
    const preview = (await fetch(`${tg.url}/bot${PLANE_BOT_TOKEN}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: Number(GROUP), text: 'Here' }),
    }).then((r) => r.json())) as { result: { message_id: number } };
    const t0 = mark();
    const message = await p.admit(41, {}, { preview: { messageId: preview.result.message_id } });
    tg.failNext('sendVoice', { error_code: 502, description: 'Bad Gateway' });
    await expect(p.turn(message, { text: 'Here it is.' })).rejects.toThrow(/sendVoice failed: 502/);
    // The preview is final now; the redelivered reply must still send its voice, and only that.
    expect((await p.origins.get(message.id))!.preview!.final).toBe(true);
    expect(await p.turn(message)).toBe('resent');
    expect(callsTo(GROUP, t0).map((c) => c.method)).toEqual(['editMessageText', 'sendVoice', 'sendVoice']);
    expect(voices(GROUP, t0).at(-1)!.params).toEqual({ chat_id: Number(GROUP), voice: FIXTURE, duration: 1 });
  });

  it('speaks answers to voice messages only, under tts.auto "inbound"', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE, 'inbound');
    const voiceNote = { kind: 'voice' as const, key: 'agents/fran/in/tg.fran.9/voice.oga', mimeType: 'audio/ogg', size: 12 };
    await p.turn(await p.admit(9, { text: '', media: [voiceNote] }), { text: 'You said it aloud.' });
    await p.turn(await p.admit(10, { text: 'and in writing' }), { text: 'You wrote it.' });
    expect(said(PRIVATE, t0)).toEqual([
      ['sendVoice', 'You said it aloud.'],
      ['sendMessage', 'You wrote it.'],
    ]);
  });

  it('turns spoken replies on and off for the session with /voice, and back to the agent’s setting with /voice default', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE, 'off');
    const cmd = (n: number, args: string) => p.admit(n, { text: `/voice ${args}`.trim(), command: { name: 'voice', args } });
    await p.turn(await cmd(11, ''));
    await p.turn(await cmd(12, 'on'));
    await p.turn(await p.admit(13), { text: 'Spoken now.' });
    await p.turn(await cmd(14, 'default'));
    await p.turn(await p.admit(15), { text: 'Written again.' });
    await p.turn(await cmd(16, 'loud'));
    expect(said(PRIVATE, t0)).toEqual([
      [
        'sendMessage',
        "Spoken replies in this session: default (the agent's setting: off (only sessions that say /voice on)). Change with /voice on, /voice off or /voice default.",
      ],
      ['sendMessage', 'Spoken replies in this session: on.'],
      ['sendVoice', 'Spoken now.'],
      ['sendMessage', "Spoken replies in this session follow the agent's setting: off (only sessions that say /voice on)."],
      ['sendMessage', 'Written again.'],
      ['sendMessage', '"loud" is not on, off or default.'],
    ]);
    // A new session forgets the choice.
    await p.turn(await cmd(17, 'on'));
    await p.turn(await p.admit(18, { text: '/new', command: { name: 'new', args: '' } }));
    await p.turn(await p.admit(19), { text: 'Fresh and written.' });
    expect(said(PRIVATE, t0).at(-1)).toEqual(['sendMessage', 'Fresh and written.']);
  });

  it('never speaks a secret of the agent, nor captions it', async () => {
    const t0 = mark();
    const secret = 'sk-live-12345678';
    const asked = speech.requests().length;
    const p = voicePlane(PRIVATE, 'always', [secret]);
    // The model splits the value with markup: the text's masking cannot see it; the spoken words would say it.
    await p.turn(await p.admit(20), { text: 'The key is `sk-live-1234`**5678**, and the whole one is sk-live-12345678.' });
    expect(
      speech
        .requests()
        .slice(asked)
        .map((r) => r.body!.input),
    ).toEqual(['The key is [redacted], and the whole one is [redacted].']);
    expect(String(voices(PRIVATE, t0)[0]!.params.caption)).not.toContain(secret);
  });

  it('sends an answer to be spoken whole, not in blocks, under block streaming', async () => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    const paragraphs = Array.from({ length: 4 }, (_, i) => `Paragraph ${i}: ${'words '.repeat(50).trim()}.`).join('\n\n');
    await p.turn(await p.admit(21, { stream: { mode: 'block', minIntervalMs: 1_000, block: { minChars: 50, maxChars: 400 } } }), { text: paragraphs });
    expect(p.handled.filter((e) => e.kind === 'block')).toEqual([]);
    expect(callsTo(PRIVATE, t0).map((c) => c.method)).toEqual(['sendVoice', 'sendMessage']);
  });
});

describe('a hostile runtime’s voice', () => {
  it.each([
    ['another agent’s file', 'agents/grif/out/0123/voice.ogg'],
    ['a file sent to it (its in/ prefix)', 'agents/fran/in/tg.fran.1/voice.oga'],
  ])('refuses a reply whose voice names %s into the DLQ, sending nothing', async (_what, key) => {
    const t0 = mark();
    const p = voicePlane(PRIVATE);
    await p.media.put(key, SPEECH_OGG, 'audio/ogg');
    const message = await p.admit(30);
    const forged = {
      v: PROTOCOL_VERSION,
      kind: 'reply' as const,
      id: `${message.id}.reply.0`,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      inReplyTo: message.id,
      ts: 1,
      text: 'listen',
      voice: { key, size: SPEECH_OGG.byteLength },
    };
    await p.deliver(forged);
    expect(p.dlq.letters.map((l) => l.reason)).toEqual([`MEDIA_NOT_OWNED: voice key "${key}" is not under the sender's own prefix agents/fran/out/`]);
    expect(callsTo(PRIVATE, t0)).toEqual([]);
  });
});
