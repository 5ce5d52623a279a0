// Where block streaming cuts an answer: at paragraph breaks and after closed code blocks, never
// inside a fence or a list item, and the same way whatever pieces the text arrived in (a block
// once sent cannot be taken back, so a cut made early must be the cut the whole text makes).
import { describe, expect, it } from 'vitest';
import { completedBlocks } from '../../runtime-image/src/stream/block-chunker.ts';
import { BlockStream } from '../../runtime-image/src/stream/block-stream.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { memoryLogger } from '../../shared/log.ts';
import { prng } from '../support/prng.ts';

const bounds = { minChars: 10, maxChars: 800 };
const blocksOf = (text: string, b = bounds) => completedBlocks(text, 0, b).blocks;

describe('block chunker', () => {
  it('cuts at paragraph breaks and after a closed code block, keeping a fence and a list item whole', () => {
    const text = [
      'First paragraph here.',
      'Intro line\n```js\nconst a = 1;\n\nconst b = 2;\n```',
      'After the code.',
      '- item one\n\n  still item one\n- item two',
      'The end, still being written',
    ].join('\n\n');
    expect(blocksOf(text)).toEqual([
      'First paragraph here.',
      'Intro line\n```js\nconst a = 1;\n\nconst b = 2;\n```',
      'After the code.',
      '- item one\n\n  still item one\n- item two',
    ]);
  });

  it('sends nothing while the text after a break could still be the rest of the block', () => {
    expect(blocksOf('Para one is here.\n\n')).toEqual([]);
    // An indented line would continue the item above: not known until its first character is written.
    expect(blocksOf('- an item with text\n\n')).toEqual([]);
    expect(blocksOf('- an item with text\n\n  more of it')).toEqual([]);
    expect(blocksOf('```\nopen fence, long enough\n\nstill code')).toEqual([]);
  });

  it('waits for minChars, joining short paragraphs into one block', () => {
    expect(blocksOf('Hi.\n\nYes.\n\nA longer third one.\n\nNext', { minChars: 12, maxChars: 800 })).toEqual(['Hi.\n\nYes.\n\nA longer third one.']);
  });

  it('past maxChars without a paragraph break, cuts at the last line break, never inside a code block', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i} of a long paragraph`).join('\n');
    const blocks = blocksOf(`${lines}\nmore`, { minChars: 10, maxChars: 100 });
    expect(blocks.length).toBeGreaterThan(1);
    for (const b of blocks) expect(b.length).toBeLessThanOrEqual(100);
    const code = `\`\`\`\n${lines}\n\`\`\`\n\nafter`;
    expect(blocksOf(code, { minChars: 10, maxChars: 100 })).toEqual([code.slice(0, code.indexOf('\n\nafter'))]);
  });

  it('cuts every prefix of an answer as it cuts the whole (what is sent early is never wrong later)', () => {
    const r = prng(20261201);
    const pieces = [
      'A short line.',
      'A paragraph with a few more words in it.',
      '```\ncode\n\nmore code\n```',
      '- a\n- b\n\n  b goes on',
      '> a quote',
      '1. one\n2. two',
    ];
    for (let round = 0; round < 40; round++) {
      const text = Array.from({ length: r.int(2, 8) }, () => r.pick(pieces)).join(r.pick(['\n\n', '\n', '\n\n\n']));
      const b = { minChars: r.int(1, 60), maxChars: r.int(30, 120) };
      const whole = blocksOf(text, b);
      for (let n = 1; n <= text.length; n++) {
        const early = blocksOf(text.slice(0, n), b);
        expect(whole.slice(0, early.length), `seed round ${round}, prefix ${n}`).toEqual(early);
      }
    }
  });

  it('sends, however the text arrives, the blocks the whole answer has, in order, and leaves the reply exactly the rest', async () => {
    const r = prng(7);
    const pieces = ['Short.', 'A paragraph of a few words.', '```\nx = 1\n\ny = 2\n```', '- a\n\n  a goes on\n- b', 'Last words here'];
    for (let round = 0; round < 30; round++) {
      const text = Array.from({ length: r.int(2, 7) }, () => r.pick(pieces)).join(r.pick(['\n\n', '\n']));
      const b = { minChars: r.int(1, 40), maxChars: r.int(20, 100) };
      const sent: string[] = [];
      const stream = new BlockStream({ bounds: b, masker: secretMasker([]), quiet: [], log: memoryLogger(), send: async (_i, t) => void sent.push(t) });
      for (let at = 0; at < text.length; ) {
        at = Math.min(text.length, at + r.int(1, 12));
        stream.update(text.slice(0, at));
        // Deltas come apart in time: the block sent meanwhile (close() drops those not yet on their way, for the reply to carry).
        await new Promise((resolve) => setImmediate(resolve));
      }
      await stream.close();
      const whole = completedBlocks(text, 0, b);
      expect(sent, `round ${round}`).toEqual(whole.blocks);
      expect(stream.rest(text.trim())).toBe(text.slice(whole.rest).trim());
    }
  });

  it('loses nothing when the turn ends before a block is on its way: the reply carries it', async () => {
    const sent: string[] = [];
    const stream = new BlockStream({ bounds, masker: secretMasker([]), quiet: [], log: memoryLogger(), send: async (_i, t) => void sent.push(t) });
    stream.update('First paragraph here.\n\nSecond one.');
    await stream.close();
    expect(sent).toEqual([]);
    expect(stream.sent).toBe(0);
    expect(stream.rest('First paragraph here.\n\nSecond one.')).toBe('First paragraph here.\n\nSecond one.');
  });

  it('counts only the blocks that went out: after a send fails, the reply is the first after none, with the rest of the answer', async () => {
    const stream = new BlockStream({
      bounds,
      masker: secretMasker([]),
      quiet: [],
      log: memoryLogger(),
      send: async () => {
        throw new Error('queue unavailable');
      },
    });
    const text = 'First paragraph here.\n\nSecond paragraph here.\n\nThird';
    stream.update(text);
    await stream.close();
    expect(stream.sent).toBe(0);
    expect(stream.rest(text)).toBe(text);
  });
});
