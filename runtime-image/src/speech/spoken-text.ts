// What of a reply is spoken: its words without the Markdown a voice would read out (asterisks,
// link targets, code fences), this agent's secret values masked once more after the markup is
// gone — `sk-12**34**` hides a key from the text's masking, not from a voice that reads
// `sk-1234` — and at most `max` characters, ending at the last sentence end within them. The
// whole reply still goes as text; the voice carries what fits.
import type { SecretMasker } from '../secrets/secret-mask.ts';

/** The reply's words as a voice should say them, or "" when nothing is left to say. */
export function spokenText(markdown: string, masker: SecretMasker, max: number): string {
  const plain = masker.mask(plainWords(masker.mask(markdown)));
  return cutAtSentence(plain, max);
}

/** Markdown to the words it shows: code blocks left out (the text carries them), markup removed, links by their label. */
export function plainWords(markdown: string): string {
  return (
    markdown
      // Fenced code blocks are read, not heard.
      .replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?(?:\n {0,3}\1[^\n]*|$)/gm, '')
      // Images and links: their label ([label](url), ![alt](url)); autolinks stay as written.
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      // Headings, quotes and list marks at a line's start.
      .replace(/^ {0,3}(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)/gm, '')
      // Emphasis, strikethrough and inline code marks; a lone * or _ inside a word stays.
      .replace(/(\*\*|__|~~|`+)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?![\w*])/g, '$1$2')
      // Horizontal rules and table rules.
      .replace(/^\s*([-*_=|:]\s*){3,}$/gm, '')
      .replace(/\|/g, ' ')
      .replace(/[ \t]+/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** At most `max` characters: up to the last sentence end (or line end) within them, else the last word that fits. */
export function cutAtSentence(text: string, max: number): string {
  if (text.length <= max) return text;
  // One character past the cap, so a sentence ending exactly at it is seen to end.
  const window = text.slice(0, max + 1);
  const ends = [...window.matchAll(/[.!?…。！？](?=["'”’)\]]*(\s|$))|\n/g)].map((m) => m.index + m[0].length).filter((end) => end <= max);
  const sentence = Math.max(0, ...ends);
  if (sentence > max / 3) return text.slice(0, sentence).trim();
  const space = window.lastIndexOf(' ');
  return `${text.slice(0, space > max / 2 ? space : max).trim()}…`;
}
