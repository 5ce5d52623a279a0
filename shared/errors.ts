// The error family of the pure core. Each error has a stable string code so edges can
// map it to an HTTP status, a DLQ reason or a tool result without parsing messages.

export class ClawfleetError extends Error {
  override name = 'ClawfleetError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ConfigIssue {
  /** JSON path of the offending value, like `agents.list[2].runtime.cpus`. */
  path: string;
  message: string;
}

/** Every problem in a config at once, so a user fixes them in one pass. */
export class ConfigError extends ClawfleetError {
  override name = 'ConfigError';
  constructor(
    readonly issues: ConfigIssue[],
    readonly source = 'config',
  ) {
    super('CONFIG_INVALID', `${source} is invalid:\n${issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n')}`);
  }
}

/** An envelope failed its schema, or claims something its transport contradicts. */
export class EnvelopeError extends ClawfleetError {
  override name = 'EnvelopeError';
  constructor(code: 'ENVELOPE_INVALID' | 'ENVELOPE_VERSION' | 'AGENT_MISMATCH' | 'SESSION_NOT_OWNED' | 'SESSION_UNKNOWN', message: string) {
    super(code, message);
  }
}

/** Formats a zod-style path (`['agents', 'list', 2, 'id']`) as `agents.list[2].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}
