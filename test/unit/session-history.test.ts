// A session's history read on from an earlier one (runtime-image/src/session/transcript-store.ts historyOf's
// `from`): what a turn that appends a record works out without reading its transcript again
// must be what a fresh read of the whole transcript would give.
import { describe, expect, it } from 'vitest';
import { historyOf } from '../../runtime-image/src/session/transcript-store.ts';
import type { TranscriptEntry } from '../../shared/workspace/transcript-entry.ts';

const turn = (n: number, extra: object = {}): TranscriptEntry => ({ inboundId: `tg.fran.${n}`, ts: n, input: `message ${n}`, reply: `answer ${n}`, ...extra });

/** Every kind of line a transcript holds, in an order that makes each matter. */
const entries: TranscriptEntry[] = [
  turn(1),
  turn(2, { model: 'openai/gpt-5-mini' }),
  turn(3, { think: 'high' }),
  turn(4),
  { inboundId: 'tg.fran.5', ts: 5, input: '[Reaction 👍 to your message 4 from "Ann"]', note: true },
  turn(6, { voiceSetting: 'on' }),
  turn(7),
  { kind: 'compaction', ts: 8, summary: 'Fran planned a trip.', throughInboundId: 'tg.fran.4' },
  turn(9),
  { inboundId: 'tg.fran.10', ts: 10, input: '[Reaction 🎉 to your message 9 from "Ann"]', note: true },
  turn(11, { reset: true }),
  turn(12),
  turn(13, { voiceSetting: 'default', model: 'anthropic/claude' }),
  { inboundId: 'tg.fran.14', ts: 14, input: '[Reaction 👀 to message 3 from "Bo"]', note: true },
];

describe('a session history read on from an earlier one', () => {
  it('is the history of the whole transcript, wherever the earlier read ended', () => {
    for (let cut = 0; cut <= entries.length; cut++) {
      for (let end = cut; end <= entries.length; end++) {
        const earlier = historyOf(entries.slice(0, cut));
        expect(historyOf(entries.slice(cut, end), earlier), `read to ${cut}, then on to ${end}`).toEqual(historyOf(entries.slice(0, end)));
      }
    }
  });

  it('leaves the earlier history as it was', () => {
    const earlier = historyOf(entries.slice(0, 6));
    const copy = structuredClone(earlier);
    historyOf(entries.slice(6), earlier);
    expect(earlier).toEqual(copy);
  });

  it('carries each setting, note and summary as a fresh read does', () => {
    expect(historyOf(entries.slice(0, 10))).toEqual({
      summary: 'Fran planned a trip.',
      model: 'openai/gpt-5-mini',
      think: 'high',
      voice: 'on',
      turns: [turn(7), turn(9)],
      pending: ['[Reaction 🎉 to your message 9 from "Ann"]'],
    });
  });
});
