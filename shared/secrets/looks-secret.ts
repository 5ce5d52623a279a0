// Whether a piece of text someone wrote where a name belongs looks like a credential (a bot
// token, an API key), so an error that quotes what was written can leave it out: a config
// holds secret names, but a pasted token must not travel on into a terminal, CI log or page.

/** A run of token characters long enough to be a key, mixing letters and digits (and cases, unless it is long). */
const TOKEN_RUN = /[A-Za-z0-9_\-:+=]{24,}/g;

function tokenLike(run: string): boolean {
  if (!/\d/.test(run) || !/[A-Za-z]/.test(run)) return false;
  return (/[a-z]/.test(run) && /[A-Z]/.test(run)) || run.length >= 40;
}

/** True when `text` holds something that may be a credential. */
export function looksSecret(text: string): boolean {
  return [...text.matchAll(TOKEN_RUN)].some((m) => tokenLike(m[0]));
}

/** `text` with each credential-like run replaced by as many `*` (so columns stay where they were). */
export function maskSecretLike(text: string): string {
  return text.replace(TOKEN_RUN, (run) => (tokenLike(run) ? '*'.repeat(run.length) : run));
}
