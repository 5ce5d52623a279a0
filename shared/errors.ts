// The error family of the pure core. Each error has a stable code from one closed list, so
// edges map it to an HTTP status (shared/http/error-status.ts, exhaustive), a DLQ reason or a
// tool result without parsing messages.

/** Every code a ClawfleetError carries. A new one needs its HTTP status too: the compiler asks for it. */
export type ErrorCode =
  // The fleet's config, and what it must name to deploy or start.
  | 'CONFIG_INVALID'
  | 'CONFIG_FILE_REQUIRED'
  | 'AGENT_NO_MODEL'
  | 'PROVIDER_UNKNOWN'
  | 'CHANNEL_UNSUPPORTED'
  | 'ACCOUNT_UNKNOWN'
  | 'HOOKS_DISABLED'
  | 'TELEGRAM_NOT_CONFIGURED'
  | 'INFRA_INCOMPLETE'
  | 'RUNTIME_IMAGE_MISSING'
  | 'HOST_INVALID'
  | 'UNKNOWN_OUTBOX'
  | 'TRIGGER_INVALID'
  | 'SCHEDULE_INVALID'
  | 'LAMBDA_ENV_INVALID'
  | 'PORT_NOT_WIRED'
  // Budgets (#31): a metered agent's runtime without its spend ledger.
  | 'SPEND_LEDGER_MISSING'
  // The local fleet's process and state directory.
  | 'STATE_DIR_IN_USE'
  | 'STORAGE_FULL'
  | 'FLEET_STARTING'
  | 'FLEET_STOPPING'
  // Agents, their lifecycle and pairings.
  | 'AGENT_UNKNOWN'
  | 'ACTION_NOT_AVAILABLE'
  | 'ACTION_RACED'
  | 'PAIRING_UNKNOWN'
  | 'COMPUTE_REQUEST_INVALID'
  | 'COMPUTE_UNSETTLED'
  | 'COMPUTE_ASK_FAILED'
  | 'COMPUTE_NOT_CONFIGURED'
  // The protocol between the control plane and the runtimes, and the session registry.
  | 'ENVELOPE_INVALID'
  | 'ENVELOPE_VERSION'
  | 'AGENT_MISMATCH'
  | 'SESSION_NOT_OWNED'
  // Secrets.
  | 'SECRET_MISSING'
  | 'SECRET_MALFORMED'
  | 'SECRET_NOT_FOUND'
  | 'SECRET_UNREADABLE'
  | 'SECRET_PUT_FAILED'
  | 'SECRET_TARGET_UNKNOWN'
  | 'SECRET_VALUES_INVALID'
  | 'STOPPED_WAITING_FOR_SECRET'
  | 'STOPPED_WAITING_FOR_GATEWAY'
  // Runtime kinds (runtime.kind): what a kind cannot do here, and a gateway that will not serve.
  | 'RUNTIME_KIND_UNSUPPORTED'
  | 'OPENCLAW_NOT_INSTALLED'
  | 'OPENCLAW_GATEWAY_FAILED'
  | 'OPENCLAW_DEVICE_KEY_INVALID'
  | 'OPENCLAW_PROTOCOL'
  | 'OPENCLAW_SANDBOX_UNAVAILABLE'
  | 'OPENCLAW_MCP_PATH_HIDDEN'
  // Local runtimes' boxes (runtime.localSandbox): no bubblewrap that works here, or a path the box would have to show and hides.
  | 'RUNTIME_BOX_UNAVAILABLE'
  | 'RUNTIME_BOX_PATH_HIDDEN'
  // The runtime's tools: web_fetch's guard, workspace files.
  | 'FETCH_REFUSED'
  | 'FETCH_UNRESOLVED'
  | 'FETCH_REDIRECTS'
  | 'FETCH_TOO_LARGE'
  | 'FETCH_ENCODING'
  | 'NOT_REGULAR_FILE'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'PATH_SYMLINK'
  | 'PATH_NOT_FOUND'
  | 'PATH_NOT_FOLDER'
  | 'FILE_ACCESS_FAILED'
  // Moving workspaces (clawfleet workspace push|pull, import-openclaw --workspaces) and holding agents for it.
  | 'AGENT_AWAKE'
  | 'AGENT_HELD'
  | 'HOLD_LOST'
  | 'HOLD_RACED'
  | 'RUNTIME_STILL_RUNNING'
  | 'WORKSPACE_CONFLICT'
  | 'TARGET_APPEARED'
  | 'AGENT_ID_CLASH'
  | 'HOLD_INVALID'
  | 'AGENT_NOT_DEPLOYED'
  | 'FILE_CHANGED'
  | 'FILE_CORRUPT'
  | 'HOLDER_GONE'
  | 'INTERRUPTED'
  | 'MANIFEST_INVALID'
  | 'MANIFEST_MISSING'
  | 'MANIFEST_OTHER_AGENT'
  | 'PATH_INVALID'
  | 'STAGING_DOCUMENT_INVALID'
  | 'STAGING_DOCUMENT_TOO_LARGE'
  | 'STAGING_INCOMPLETE'
  | 'STAGING_KEY_INVALID'
  | 'STAGING_OBJECT_MISSING'
  | 'STAGING_PREFIX_INVALID'
  | 'TARGET_BLOCKED'
  | 'TASK_FAILED'
  | 'TASK_TIMEOUT'
  | 'TRANSFER_UNVERIFIED'
  | 'WORKSPACE_TASK_NOT_STARTED'
  | 'WORKSPACE_TOO_LARGE'
  | 'WORKSPACE_TOO_MANY_FILES'
  // Media (#16): files between the chat, the media store and an agent.
  | 'MEDIA_KEY_INVALID'
  | 'MEDIA_NOT_OWNED'
  | 'MEDIA_TOO_LARGE'
  | 'MEDIA_MISSING'
  | 'TRANSCRIPTION_FAILED'
  // Spoken replies (#31): the speech provider failed or answered something that is no voice message.
  | 'SPEECH_FAILED'
  // The fleet's skills as shipped to an agent on AWS (#19).
  | 'FLEET_SKILLS_INVALID'
  // A request to one of our HTTP surfaces (the local server, the dashboard).
  | 'ROUTE_UNKNOWN'
  | 'METHOD_NOT_ALLOWED'
  | 'CONTENT_TYPE_UNSUPPORTED'
  | 'BODY_TOO_LARGE'
  | 'BODY_NOT_JSON'
  | 'BODY_INVALID'
  | 'TOKEN_INVALID'
  | 'SIGN_IN_REQUIRED'
  | 'DASHBOARD_TOKEN_UNSET'
  | 'HOST_NOT_ALLOWED'
  | 'ORIGIN_NOT_ALLOWED';

export class ClawfleetError extends Error {
  override name = 'ClawfleetError';
  constructor(
    readonly code: ErrorCode,
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
  /** Where in the file, for a problem of its text (not valid JSON) rather than of a value: the line shown with a caret. */
  at?: { line: number; column: number; excerpt: string };
}

/** Every problem in a config at once, so a user fixes them in one pass. */
export class ConfigError extends ClawfleetError {
  override name = 'ConfigError';
  constructor(
    readonly issues: ConfigIssue[],
    readonly source = 'config',
  ) {
    super('CONFIG_INVALID', `${source} is invalid:\n${issues.map(issueLines).join('\n')}`);
  }
}

/** One problem as the list shows it: its path (or line and column) and message, then the line of the file if there is one. */
function issueLines(i: ConfigIssue): string {
  if (!i.at) return `  - ${i.path || '(root)'}: ${i.message}`;
  return `  - line ${i.at.line}, column ${i.at.column}: ${i.message}\n${i.at.excerpt.replace(/^/gm, '      ')}`;
}

/** An envelope failed its schema, or claims something its transport contradicts. */
export class EnvelopeError extends ClawfleetError {
  override name = 'EnvelopeError';
  declare readonly code: 'ENVELOPE_INVALID' | 'ENVELOPE_VERSION' | 'AGENT_MISMATCH';
  constructor(code: EnvelopeError['code'], message: string) {
    super(code, message);
  }
}

/** Formats a zod-style path (`['agents', 'list', 2, 'id']`) as `agents.list[2].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}
