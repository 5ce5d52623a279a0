// "Did you mean …?" for a mistyped word (a config key or value, a CLI command or option):
// the closest of the words allowed, by edit distance, and only when it is close enough that
// the guess helps rather than confuses.

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring letters each cost one ("josn" is one step from "json").
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The allowed word closest to `word`, if it is within a third of the word's length (at least
 * one edit, at most three) or differs only in case; undefined when nothing is that close, or
 * when `word` is itself allowed.
 */
export function closest(word: string, allowed: Iterable<string>): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of allowed) {
    if (candidate === word) return undefined;
    const distance = candidate.toLowerCase() === word.toLowerCase() ? 0 : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return best && best.distance <= limit ? best.word : undefined;
}

/** `; did you mean "x"?` to append to a message, or nothing. */
export function didYouMean(word: string, allowed: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const guess = closest(word, allowed);
  return guess === undefined ? '' : `; did you mean ${quote(guess)}?`;
}
