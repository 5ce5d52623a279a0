// A docs screenshot carries the digest of what it shows in a PNG tEXt chunk (test/support/png-text.ts,
// test/e2e/docs-screenshot.ts): written after the header chunk with its CRC, read back, the rest untouched.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pngText, withPngText } from '../support/png-text.ts';

/** A real 1×1 PNG: IHDR, IDAT, IEND. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The chunks of a PNG: type, data and whether the stored CRC is right. */
function chunks(png: Buffer): { type: string; data: string; crcOk: boolean }[] {
  const out = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    out.push({
      type: typeAndData.toString('latin1', 0, 4),
      data: typeAndData.toString('latin1', 4),
      crcOk: png.readUInt32BE(at + 8 + length) === crc32(typeAndData),
    });
    at += 12 + length;
  }
  return out;
}

describe('PNG text chunks', () => {
  it('adds a tEXt chunk after the header, with a right CRC, and reads it back', () => {
    const tagged = withPngText(PNG, 'clawfleet-sources', 'abc123');
    expect(chunks(tagged).map((c) => [c.type, c.crcOk])).toEqual([
      ['IHDR', true],
      ['tEXt', true],
      ['IDAT', true],
      ['IEND', true],
    ]);
    expect(chunks(tagged)[1]!.data).toBe('clawfleet-sources\0abc123');
    expect(pngText(tagged, 'clawfleet-sources')).toBe('abc123');
    // Everything else is the picture as it was.
    expect(Buffer.concat([tagged.subarray(0, 33), tagged.subarray(33 + 12 + 'clawfleet-sources\0abc123'.length)])).toEqual(PNG);
  });

  it('finds no text in a PNG without one, nor under another keyword, and refuses what is not a PNG', () => {
    expect(pngText(PNG, 'clawfleet-sources')).toBeUndefined();
    expect(pngText(withPngText(PNG, 'Software', 'x'), 'clawfleet-sources')).toBeUndefined();
    expect(() => withPngText(Buffer.from('GIF89a'), 'k', 'v')).toThrow('not a PNG');
  });
});
