// Structured JSON log lines with correlation keys. Every line passes through a redactor
// that knows the secret values this process holds, so a value that slips into a message
// or an error is masked before it is written.

export type Fields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
}

/** Secret values known to this process; anything matching is masked in every log line. */
export class Redactor {
  private readonly values = new Set<string>();

  add(...values: string[]): void {
    // Short values would mask ordinary words; real secrets are longer.
    for (const v of values) if (v.length >= 8) this.values.add(v);
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join('[redacted]');
    return out;
  }
}

export const processRedactor = new Redactor();

export function errorFields(err: unknown): Fields {
  if (!(err instanceof Error)) return { error: String(err) };
  const code = (err as { code?: unknown }).code;
  return { error: err.message, errorName: err.name, ...(typeof code === 'string' ? { errorCode: code } : {}) };
}

export function createLogger(
  bindings: Fields = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  redactor: Redactor = processRedactor,
  now: () => number = Date.now,
): Logger {
  const emit = (level: string, msg: string, fields?: Fields) =>
    write(redactor.redact(JSON.stringify({ level, time: new Date(now()).toISOString(), msg, ...bindings, ...fields })));
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger({ ...bindings, ...fields }, write, redactor, now),
  };
}

/** For tests: collects lines instead of writing them. */
export function memoryLogger(): Logger & { lines: Fields[] } {
  const lines: Fields[] = [];
  const logger = createLogger({}, (line) => lines.push(JSON.parse(line) as Fields));
  return Object.assign(logger, { lines });
}
