// Text to speech in the runtime (#31): the OpenAI-compatible client against a fake /audio/speech
// on 127.0.0.1 answering a real Ogg Opus file, and what it refuses from a hostile endpoint — an
// error that would quote the key, HTML or MP3 where audio was asked for, a body past the cap
// (declared, or one that never ends), an answer that never comes, a redirect that would take the
// key elsewhere; what of a reply is spoken (markup gone, secrets masked after it is gone, cut at a
// sentence); and when a turn is spoken at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { resolvedTts } from '../../shared/config/tts.ts';
import { memoryLogger } from '../../shared/log.ts';
import { franMessage } from '../support/fran-turn.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { oggOpusSeconds } from '../../runtime-image/src/speech/ogg-opus.ts';
import { openAiSpeech } from '../../runtime-image/src/speech/speech-client.ts';
import { speaker } from '../../runtime-image/src/speech/spoken-reply.ts';
import { cutAtSentence, plainWords, spokenText } from '../../runtime-image/src/speech/spoken-text.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { SPEECH_OGG, startSpeech, type FakeSpeech } from '../support/fake-speech.ts';

const KEY = 'sk-test-speech-0123456789abcdef';
let speech: FakeSpeech;
let elsewhere: FakeSpeech;
beforeAll(async () => {
  [speech, elsewhere] = await Promise.all([startSpeech({ apiKey: KEY }), startSpeech()]);
});
afterAll(async () => {
  await Promise.all([speech?.close(), elsewhere?.close()]);
});

const tts = (more: Partial<Parameters<typeof resolvedTts>[0]> = {}) => resolvedTts({ baseUrl: speech.url, model: 'tts-1', voice: 'alloy', ...more });
const never = new AbortController().signal;

describe('the speech client', () => {
  it('asks for Ogg Opus with the model, voice and key, and gets the voice message and its length', async () => {
    const from = speech.requests().length;
    const out = await openAiSpeech(tts(), KEY)('Hello there.', never);
    expect(Buffer.from(out.bytes).equals(SPEECH_OGG)).toBe(true);
    expect(out.durationSeconds).toBe(1);
    expect(speech.requests().slice(from)).toEqual([
      { authorization: `Bearer ${KEY}`, body: { model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'opus' }, at: expect.any(Number) },
    ]);
  });

  it('names the provider’s status and message when it refuses, never the key', async () => {
    const err = await openAiSpeech(tts(), 'sk-wrong-key-0123456789')('Hi.', never).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'SPEECH_FAILED', message: 'the speech provider answered 401: Incorrect API key provided' });
    expect(String((err as Error).message)).not.toContain('sk-wrong');
  });

  it('refuses an answer that is not audio, and audio that is not Ogg Opus', async () => {
    speech.script(
      { kind: 'bytes', body: Buffer.from('<html>login</html>'), contentType: 'text/html' },
      { kind: 'bytes', body: Buffer.from('ID3\x04\x00 an mp3', 'latin1'), contentType: 'audio/ogg' },
      // An Ogg stream of another codec (Vorbis): not what Telegram plays as a voice message.
      { kind: 'bytes', body: Buffer.concat([SPEECH_OGG.subarray(0, 28), Buffer.from('\x01vorbis'), SPEECH_OGG.subarray(35)]), contentType: 'audio/ogg' },
    );
    const say = openAiSpeech(tts(), KEY);
    await expect(say('One.', never)).rejects.toThrow('the speech provider answered text/html, not audio');
    await expect(say('Two.', never)).rejects.toThrow("the speech provider's answer is not Ogg Opus: it is not an Ogg stream");
    await expect(say('Three.', never)).rejects.toThrow("the speech provider's answer is not Ogg Opus: its first packet is not an Opus header");
  });

  it('refuses a body past the cap, whether declared or streamed without end, and reads no further', async () => {
    speech.script(
      { kind: 'bytes', body: SPEECH_OGG, contentType: 'audio/ogg', declaredLength: 50 * 1024 * 1024 },
      { kind: 'endless', bytes: 64 * 1024 * 1024 },
    );
    const say = openAiSpeech(tts(), KEY, fetch, 1024 * 1024);
    await expect(say('Huge.', never)).rejects.toThrow("the speech provider's answer is 52428800 bytes, over the 1048576 a voice message may be");
    await expect(say('Endless.', never)).rejects.toThrow("the speech provider's answer is over the 1048576 bytes a voice message may be");
  });

  it('gives up on an answer that does not come within the timeout', async () => {
    speech.script({ kind: 'hang' });
    await expect(openAiSpeech(tts({ timeoutMs: 1_000 }), KEY)('Slow.', never)).rejects.toThrow('the speech provider did not answer within 1 s');
  });

  it('follows no redirect: the key never reaches another host', async () => {
    speech.script({ kind: 'redirect', location: `${elsewhere.url}/audio/speech` });
    await expect(openAiSpeech(tts(), KEY)('Moved.', never)).rejects.toThrow(/the speech provider could not be reached/);
    expect(elsewhere.requests()).toEqual([]);
  });
});

describe('Ogg Opus', () => {
  it('reads the fixture’s length from its last page (1.2 s of tone: 1 s)', () => {
    expect(oggOpusSeconds(SPEECH_OGG)).toBe(1);
  });

  it('refuses bytes that are not an Ogg Opus stream', () => {
    expect(() => oggOpusSeconds(Buffer.from('OggS'))).toThrow(/not an Ogg stream/);
    expect(() => oggOpusSeconds(SPEECH_OGG.subarray(0, 47))).toThrow(/no audio page after the header/);
  });
});

describe('what of a reply is spoken', () => {
  const masker = secretMasker(['sk-live-12345678']);

  it('says the words without their markup: no asterisks, no link targets, no code blocks', () => {
    expect(plainWords('# Plan\n\n**Pack** the _bags_ and see [the list](https://x.example/list).\n\n```sh\nrm -rf /\n```\n\n- one\n- two')).toBe(
      'Plan\n\nPack the bags and see the list.\n\none\ntwo',
    );
  });

  it('masks a secret that the markup had split, once the markup is gone', () => {
    const reply = 'The key is `sk-live-1234`**5678**.';
    // The text's own masking cannot see it: the value is not in the text as written.
    expect(masker.mask(reply)).toBe(reply);
    expect(spokenText(reply, masker, 1_500)).toBe('The key is [redacted].');
  });

  it('speaks a long reply up to its last sentence end within the cap', () => {
    const long = `${'This is one sentence. '.repeat(10)}And this one runs on and on`;
    expect(cutAtSentence(long, 100)).toBe('This is one sentence. This is one sentence. This is one sentence. This is one sentence.');
    expect(cutAtSentence('word '.repeat(40), 50)).toMatch(/^(word ){8,9}word…$/);
    expect(cutAtSentence('short.', 100)).toBe('short.');
  });
});

describe('the speaker', () => {
  const make = (auto: 'off' | 'always' | 'inbound', store = new InMemoryMediaStore(), log = memoryLogger()) => ({
    store,
    log,
    s: speaker({ agentId: 'fran', tts: { baseUrl: speech.url, auto }, apiKey: KEY, store, masker: secretMasker([KEY]), log }),
  });
  const voiceNote = { kind: 'voice' as const, key: 'agents/fran/in/tg.fran.1/voice.oga', mimeType: 'audio/ogg', size: 10 };

  it('speaks what the agent’s setting says, unless the session said otherwise with /voice', () => {
    const text = turnRequestFor(franMessage(1, 'hi'));
    const voice = turnRequestFor(franMessage(2, '', { media: [voiceNote] }));
    expect([
      make('off').s.wanted(text, {}),
      make('always').s.wanted(text, {}),
      make('inbound').s.wanted(text, {}),
      make('inbound').s.wanted(voice, {}),
    ]).toEqual([false, true, false, true]);
    expect(make('off').s.wanted(text, { voice: 'on' })).toBe(true);
    expect(make('always').s.wanted(voice, { voice: 'off' })).toBe(false);
  });

  it('never speaks an answer to another agent', () => {
    const ask = turnRequestFor({
      v: 5,
      kind: 'agent_message',
      id: 'a2a.1',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      ts: 1,
      fromAgentId: 'grif',
      replyTo: { sessionKey: 'agent:grif:main' },
      text: 'hi',
      hops: 1,
    });
    expect(make('always').s.wanted(ask, { voice: 'on' })).toBe(false);
  });

  it('keeps the voice under the agent’s own out/ prefix, named by its bytes', async () => {
    const { s, store } = make('always');
    const ref = await s.speak('Good morning.', never);
    expect(ref).toEqual({ key: expect.stringMatching(/^agents\/fran\/out\/[0-9a-f]{32}\/voice\.ogg$/), size: SPEECH_OGG.byteLength, durationSeconds: 1 });
    expect(store.objects.get(ref!.key)).toEqual({ bytes: Uint8Array.from(SPEECH_OGG), mimeType: 'audio/ogg' });
  });

  it('leaves the answer to the text when synthesis fails, saying why in the log only', async () => {
    const { s, store, log } = make('always');
    speech.script({ kind: 'error', status: 500, message: 'overloaded' });
    expect(await s.speak('Good evening.', never)).toBeUndefined();
    expect(store.objects.size).toBe(0);
    expect(log.lines.find((l) => l.msg === 'reply not spoken; it goes as text alone')).toMatchObject({ error: 'the speech provider answered 500: overloaded' });
  });

  it('asks nothing when nothing is left to say (a reply that is all code)', async () => {
    const from = speech.requests().length;
    expect(await make('always').s.speak('```\nls\n```', never)).toBeUndefined();
    expect(speech.requests().length).toBe(from);
  });
});
