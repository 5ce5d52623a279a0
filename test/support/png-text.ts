// A PNG's tEXt chunks: a line of text a picture carries about itself (PNG spec, 11.3.4.3),
// here which sources a docs screenshot shows (test/e2e/docs-screenshot.ts).
import { crc32 } from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  typeAndData.copy(out, 4);
  out.writeUInt32BE(crc32(typeAndData), 8 + data.length);
  return out;
}

/** The PNG with a tEXt chunk `keyword=text` right after its header chunk (IHDR, always first). */
export function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  const afterHeader = 8 + 8 + png.readUInt32BE(8) + 4;
  return Buffer.concat([png.subarray(0, afterHeader), chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1')), png.subarray(afterHeader)]);
}

/** The text of the PNG's first tEXt chunk named `keyword`, if it has one. */
export function pngText(png: Buffer, keyword: string): string | undefined {
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const data = png.subarray(at + 8, at + 8 + length);
      const nul = data.indexOf(0);
      if (data.toString('latin1', 0, nul) === keyword) return data.toString('latin1', nul + 1);
    }
    if (type === 'IEND') return undefined;
    at += 12 + length;
  }
  return undefined;
}
