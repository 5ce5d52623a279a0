// Telegram's Markdown rendering (marked's lexer, ~40 KB of a bundle), loaded when a sender first
// formats text, not with the process: most of λ telegram-webhook's requests send nothing, and in
// a bundle (function-bundling.ts) it is a chunk of its own.
import type { markdownToTelegramHtml } from '../../telegram/markdown-html.ts';
import type { telegramChunks } from '../../telegram/telegram-chunks.ts';

export interface TelegramMarkdown {
  markdownToTelegramHtml: typeof markdownToTelegramHtml;
  telegramChunks: typeof telegramChunks;
}

let loaded: Promise<TelegramMarkdown> | undefined;

/** The renderer, loaded once per process; a failed load is tried again by the next caller. */
export function telegramMarkdown(): Promise<TelegramMarkdown> {
  loaded ??= Promise.all([import('../../telegram/markdown-html.ts'), import('../../telegram/telegram-chunks.ts')]).then(
    ([html, chunks]) => ({ markdownToTelegramHtml: html.markdownToTelegramHtml, telegramChunks: chunks.telegramChunks }),
    (err: unknown) => {
      loaded = undefined;
      throw err;
    },
  );
  return loaded;
}
