// Masks this agent's own secret values in text a tool returned (and in the final reply)
// before the model, the transcript or a user sees it. Besides the value itself it finds
// the spellings a command prints a key in at no cost to look for: JSON- and URL-escaped,
// hex, and base64/base64url at any byte offset (`base64 .env` shifts the key by the bytes
// before it, so each of the three alignments is searched for its fully determined part).

export const MASK = '[redacted]';

/** Values shorter than this are not masked: they would hide ordinary words and numbers, and are no real key. */
const MIN_SECRET_LENGTH = 8;

export interface SecretMasker {
  mask(text: string): string;
}

export function secretMasker(values: Iterable<string>): SecretMasker {
  const needles = new Set<string>();
  for (const v of values) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    for (const n of spellings(v)) needles.add(n);
  }
  // Longest first, so a value is masked whole before a shorter one inside it.
  const ordered = [...needles].sort((a, b) => b.length - a.length);
  return {
    mask(text) {
      let out = text;
      for (const n of ordered) if (out.includes(n)) out = out.split(n).join(MASK);
      return out;
    },
  };
}

/** The value and the encodings of it a tool is likely to print. */
export function spellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out = [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
  for (let offset = 0; offset < 3; offset++) {
    const core = base64Core(bytes, offset);
    out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out.filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 characters that depend only on the value's bytes when `offset` bytes
 * (0–2) precede it in the encoded stream: each character carries 6 bits, so the ones
 * straddling the value's first or last byte and its neighbours are left out.
 */
function base64Core(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const firstBit = offset * 8;
  const endBit = firstBit + bytes.length * 8;
  return encoded.slice(Math.ceil(firstBit / 6), Math.floor(endBit / 6));
}
