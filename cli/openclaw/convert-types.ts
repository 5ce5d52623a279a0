// What the OpenClaw converters (convert.ts and the sections it hands off: conversation,
// reactions, tts, state) share: a JSON object as read from openclaw.json, and the reporter each
// tells what it could not carry over and why.

/** A JSON object of openclaw.json, its keys not yet known. */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a converter says what it left out (with its path and why) and what is worth knowing. */
export interface Reporter {
  skip(path: string, reason: string): void;
  note(text: string): void;
}
