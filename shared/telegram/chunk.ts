// Telegram takes at most 4096 characters per message. Long replies are split on the
// last paragraph break, else line break, else space, that fits — never mid-word if it can help it.

export const TELEGRAM_MAX_TEXT = 4096;

export function chunkText(text: string, max = TELEGRAM_MAX_TEXT): string[] {
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((i) => i > max / 2) ?? max;
    chunks.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest);
  return chunks;
}
