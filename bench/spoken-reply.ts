// What a spoken reply adds to a turn (#31), and what a progress status costs: one process, the
// runtime's turn and the control plane's outbox core over the fake Bot API (test/support/
// chat-plane.ts), an instant model and a fake /audio/speech that answers at once with the
// 2113-byte Ogg Opus fixture. So the figures are clawfleet's own share — spokenText, the HTTP
// round trip on loopback, the Ogg check, the media store put, the multipart sendVoice — not a
// provider's synthesis time (OpenAI's gpt-4o-mini-tts takes on the order of a second).
//   npx tsx bench/spoken-reply.ts [turns]
import { performance } from 'node:perf_hooks';
import { secretMasker } from '../runtime-image/src/secrets/secret-mask.ts';
import { speaker } from '../runtime-image/src/speech/spoken-reply.ts';
import { runTurn } from '../runtime-image/src/turn/turn.ts';
import { turnRequestFor } from '../runtime-image/src/turn/turn-request.ts';
import { defineTool } from '../runtime-image/src/tools/tool.ts';
import { chatPlane, PLANE_BOT_TOKEN, scriptedModel } from '../test/support/chat-plane.ts';
import { startSpeech } from '../test/support/fake-speech.ts';
import { start as startTelegram } from '../test/support/fake-telegram.ts';
import { z } from 'zod';

const TURNS = Number(process.argv[2] ?? 40);
const WARMUP = 5;
const ANSWER = 'Good morning. The weather is fine today, with sun in the afternoon and a light wind from the west.';

const tg = await startTelegram({ bots: [{ token: PLANE_BOT_TOKEN }] });
const speech = await startSpeech();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;

/** Turn wall times (ms) from the message to the last Bot API call, spoken or not. */
async function turns(spoken: boolean): Promise<number[]> {
  const p = chatPlane(tg, '4242');
  const voice = spoken
    ? speaker({ agentId: 'fran', tts: { baseUrl: speech.url, auto: 'always' }, apiKey: undefined, store: p.media, masker: secretMasker([]), log: p.log })
    : undefined;
  const deps = p.runtime(scriptedModel(), { speech: voice });
  const model = scriptedModel();
  deps.model = { ...model, complete: (req) => model.complete(req, { text: ANSWER }) };
  const out: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const message = await p.admit(1000 + i);
    const t0 = performance.now();
    await runTurn(turnRequestFor(message), deps, new AbortController().signal);
    if (i >= WARMUP) out.push(performance.now() - t0);
  }
  return out;
}

/** speak() alone: spokenText, the speech request on loopback, the Ogg check, the media store put. */
async function speakAlone(): Promise<number[]> {
  const p = chatPlane(tg, '4242');
  const voice = speaker({
    agentId: 'fran',
    tts: { baseUrl: speech.url, auto: 'always' },
    apiKey: undefined,
    store: p.media,
    masker: secretMasker([]),
    log: p.log,
  });
  const out: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const t0 = performance.now();
    await voice.speak(ANSWER, new AbortController().signal);
    if (i >= WARMUP) out.push(performance.now() - t0);
  }
  return out;
}

const alone = await speakAlone();
const text = await turns(false);
const spoken = await turns(true);
console.log(`turns: ${TURNS} each (after ${WARMUP} warm-up), answer of ${ANSWER.length} characters`);
console.log(`text reply:   median ${median(text).toFixed(1)} ms, p90 ${p90(text).toFixed(1)} ms (sendMessage)`);
console.log(
  `spoken reply: median ${median(spoken).toFixed(1)} ms, p90 ${p90(spoken).toFixed(1)} ms (speech request, Ogg check, media put, multipart sendVoice)`,
);
console.log(`added by speaking: ${(median(spoken) - median(text)).toFixed(1)} ms median`);
console.log(`speak() alone: median ${median(alone).toFixed(1)} ms, p90 ${p90(alone).toFixed(1)} ms`);

// Progress: a turn of ten tool calls of 300 ms each in a private chat (a status a second at most).
const p = chatPlane(tg, '4242');
const tool = defineTool({
  name: 'exec',
  description: 'slow',
  schema: z.object({}),
  run: () => new Promise((r) => setTimeout(() => r('done'), 300)),
});
const steps = [...Array.from({ length: 10 }, () => ({ calls: [{ name: 'exec' }] })), { text: ANSWER }];
const deps = p.runtime(scriptedModel(...steps), { tools: () => [tool] });
const before = tg.calls().length;
const t0 = performance.now();
await runTurn(turnRequestFor(await p.admit(1, { stream: { mode: 'progress', minIntervalMs: 1_000 } })), deps, new AbortController().signal);
const wall = performance.now() - t0;
const calls = tg.calls().slice(before);
console.log(
  `progress: a ${(wall / 1000).toFixed(1)} s turn of 10 tool calls sent ${p.handled.filter((e) => e.kind === 'draft').length} status drafts ` +
    `(${calls.filter((c) => c.method === 'sendMessageDraft').length} sendMessageDraft) and ${calls.filter((c) => c.method === 'sendMessage').length} answer message`,
);

await speech.close();
await tg.close();
