// Someone else's words placed inside a frame of ours without ending it: a name or a file name
// on one line inside double quotes and a bracketed header (oneLine), and the line breaks a
// model might read as such, for quoting text line by line (LINE_BREAKS). Pure.

/** Every line break a model might read as one (\n, \r, vertical tab, form feed, NEL, the Unicode separators, FS/GS/RS). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters that break lines are what it finds.
export const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * A name or a file name on one line, inside double quotes and a bracketed header without
 * ending either: line breaks and control characters become spaces, double quotes (and their
 * typographic and fullwidth look-alikes) become `'`, and brackets (theirs too) parentheses.
 */
export function oneLine(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
      .replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, ' ')
      .replace(/["\u201c-\u201f\uff02]/g, "'")
      .replace(/[[\uff3b\u3010\u3016]/g, '(')
      .replace(/[\]\uff3d\u3011\u3017]/g, ')')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
