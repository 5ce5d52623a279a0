// Renders a hook mapping's template (`messageTemplate`, `sessionKey`) from the request's
// JSON body. The result is text for a model, so nothing is escaped; a field the body
// lacks renders empty rather than failing the request.

/**
 * `{{body.a.b}}`, `{{body.items[0].name}}`, `{{body.items.0.name}}`, `{{body}}` (the
 * whole body as JSON). Any other `{{...}}` is not a placeholder and stays as written.
 */
const PLACEHOLDER = /\{\{\s*(body(?:(?:\.[^.[\]{}\s]+)|(?:\[\d+\]))*)\s*\}\}/g;

export interface Rendered {
  text: string;
  /** The text reached `maxChars` and was cut there; the caller refuses it rather than pass half a message on. */
  tooLong: boolean;
}

/** The path segments of a placeholder expression after `body`: `body.a[0].b` → ['a', '0', 'b']. */
function segments(expr: string): string[] {
  return expr
    .slice('body'.length)
    .split(/\.|\[|\]/)
    .filter((s) => s !== '');
}

function lookup(body: unknown, path: string[]): unknown {
  let at: unknown = body;
  for (const key of path) {
    if (Array.isArray(at)) {
      if (!/^\d+$/.test(key)) return undefined;
      at = at[Number(key)];
    } else if (typeof at === 'object' && at !== null && Object.hasOwn(at, key)) {
      // Own properties only: `{{body.constructor}}` must not reach the prototype.
      at = (at as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return at;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function renderTemplate(template: string, body: unknown, maxChars: number): Rendered {
  let text = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    text += template.slice(last, match.index) + asText(lookup(body, segments(match[1]!)));
    last = match.index + match[0].length;
    // Stop early: a template that repeats a large field must not build megabytes first.
    if (text.length > maxChars) return { text: text.slice(0, maxChars), tooLong: true };
  }
  text += template.slice(last);
  return text.length > maxChars ? { text: text.slice(0, maxChars), tooLong: true } : { text, tooLong: false };
}

/** Whether a template reads the request body at all: a key rendered from one is the caller's choice, not the operator's. */
export function templateReadsBody(template: string): boolean {
  return [...template.matchAll(PLACEHOLDER)].length > 0;
}
