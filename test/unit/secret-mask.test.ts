// The agent's own secret values masked in tool output: as printed, and in the encodings a
// command prints a key in (JSON- and URL-escaped, hex, base64 and base64url at any offset).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MASK, secretMasker, spellings } from '../../runtime-image/src/secrets/secret-mask.ts';

const KEY = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
const TOKEN = 'ghp_Zz9/Yy8+Xx7"Ww6\\Vv5 Uu4&Tt3';
const masker = secretMasker([KEY, TOKEN, 'short', '']);

describe('the secret masker', () => {
  it('masks each value wherever it appears, and leaves other text alone', () => {
    expect(masker.mask(`OPENAI_API_KEY=${KEY}\nGRAPH=${TOKEN}\n${KEY}${KEY}`)).toBe(`OPENAI_API_KEY=${MASK}\nGRAPH=${MASK}\n${MASK}${MASK}`);
    expect(masker.mask('nothing to see, a short word stays: short')).toBe('nothing to see, a short word stays: short');
  });

  it('masks the JSON-escaped, URL-encoded and hex spellings', () => {
    for (const printed of [
      JSON.stringify({ token: TOKEN }),
      `https://api.example/?t=${encodeURIComponent(TOKEN)}`,
      Buffer.from(KEY).toString('hex'),
      Buffer.from(KEY).toString('hex').toUpperCase(),
    ]) {
      const out = masker.mask(printed);
      expect(out, printed).toContain(MASK);
      expect(out).not.toContain(printed.includes('%') ? encodeURIComponent(TOKEN) : printed.includes('{') ? JSON.stringify(TOKEN).slice(1, -1) : printed);
    }
  });

  it('masks base64 and base64url of the value at every byte offset, as `base64 .env` prints it', () => {
    for (const prefix of ['', 'K', 'KE', 'KEY=', 'export OPENAI_API_KEY=']) {
      for (const suffix of ['', '\n', 'xyz']) {
        const plain = `${prefix}${KEY}${suffix}`;
        for (const encoded of [Buffer.from(plain).toString('base64'), Buffer.from(plain).toString('base64url')]) {
          const out = masker.mask(encoded);
          expect(out, encoded).toContain(MASK);
          // What stays unmasked is the encoding of the bytes around the value, and at most
          // one character at each edge that mixes their bits with the value's.
          const around = Math.ceil(((prefix.length + suffix.length) * 4) / 3) + 4;
          expect(out.length - MASK.length, encoded).toBeLessThanOrEqual(around);
        }
      }
    }
  });

  it('masks what the system’s own base64 and od print', () => {
    const b64 = execFileSync('base64', { input: `OPENAI_API_KEY=${KEY}\n` }).toString();
    expect(masker.mask(b64)).toContain(MASK);
    const hex = execFileSync('od', ['-An', '-tx1'], { input: KEY }).toString().replace(/\s+/g, '');
    expect(masker.mask(hex)).toContain(MASK);
  });

  it('does not mask values shorter than 8 characters (they would hide ordinary words), and none of its spellings are shorter', () => {
    expect(secretMasker(['abc123', '1234567']).mask('abc123 1234567')).toBe('abc123 1234567');
    expect(spellings('12345678').every((s) => s.length >= 8)).toBe(true);
  });

  it('masks a value that contains another one whole', () => {
    expect(secretMasker(['abcdefgh', 'xxabcdefghxx']).mask('xxabcdefghxx abcdefgh')).toBe(`${MASK} ${MASK}`);
  });
});
