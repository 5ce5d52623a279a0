// Which HTTP status answers each error code, wherever errors meet HTTP: the local server
// (local/server.ts) and the dashboard (shared/dashboard/handler.ts, served locally and by λ
// dashboard's Function URL). Exhaustive over ErrorCode, so a new code does not compile
// until it has a status. A 500 means a fault of ours, not of the request: the edge answers
// "internal error" and logs the error once; every other code is answered with its message.
import { ClawfleetError, type ErrorCode } from '../errors.ts';

type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 500 | 503;

export const ERROR_STATUS = {
  // The request is not one we can read.
  BODY_NOT_JSON: 400,
  BODY_INVALID: 400,
  ENVELOPE_INVALID: 400,
  ENVELOPE_VERSION: 400,
  AGENT_MISMATCH: 400,
  BODY_TOO_LARGE: 413,
  CONTENT_TYPE_UNSUPPORTED: 415,
  METHOD_NOT_ALLOWED: 405,
  // Who is asking, and from where.
  TOKEN_INVALID: 401,
  SIGN_IN_REQUIRED: 401,
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  // What it names is not there.
  ROUTE_UNKNOWN: 404,
  AGENT_UNKNOWN: 404,
  PAIRING_UNKNOWN: 404,
  // What it asks cannot be done in the agent's present state.
  ACTION_NOT_AVAILABLE: 409,
  ACTION_RACED: 409,
  // A workspace transfer and the agent's hold: what it asks clashes with the agent's state or files.
  AGENT_AWAKE: 409,
  AGENT_HELD: 409,
  HOLD_LOST: 409,
  HOLD_RACED: 409,
  RUNTIME_STILL_RUNNING: 409,
  WORKSPACE_CONFLICT: 409,
  TARGET_APPEARED: 409,
  AGENT_ID_CLASH: 409,
  HOLD_INVALID: 400,
  // Not now: the same request may succeed later.
  FLEET_STARTING: 503,
  FLEET_STOPPING: 503,
  STOPPED_WAITING_FOR_SECRET: 503,
  STOPPED_WAITING_FOR_GATEWAY: 503,
  STORAGE_FULL: 503,
  DASHBOARD_TOKEN_UNSET: 503,
  // Faults of ours (config, infrastructure, secrets, internals): never the caller's to fix.
  CONFIG_INVALID: 500,
  CONFIG_FILE_REQUIRED: 500,
  AGENT_NO_MODEL: 500,
  PROVIDER_UNKNOWN: 500,
  CHANNEL_UNSUPPORTED: 500,
  ACCOUNT_UNKNOWN: 500,
  HOOKS_DISABLED: 500,
  TELEGRAM_NOT_CONFIGURED: 500,
  INFRA_INCOMPLETE: 500,
  RUNTIME_IMAGE_MISSING: 500,
  RUNTIME_KIND_UNSUPPORTED: 500,
  OPENCLAW_NOT_INSTALLED: 500,
  OPENCLAW_GATEWAY_FAILED: 500,
  OPENCLAW_DEVICE_KEY_INVALID: 500,
  OPENCLAW_PROTOCOL: 500,
  OPENCLAW_SANDBOX_UNAVAILABLE: 500,
  OPENCLAW_MCP_PATH_HIDDEN: 500,
  RUNTIME_BOX_UNAVAILABLE: 500,
  RUNTIME_BOX_PATH_HIDDEN: 500,
  HOST_INVALID: 500,
  UNKNOWN_OUTBOX: 500,
  TRIGGER_INVALID: 500,
  SCHEDULE_INVALID: 500,
  LAMBDA_ENV_INVALID: 500,
  PORT_NOT_WIRED: 500,
  SPEND_LEDGER_MISSING: 500,
  STATE_DIR_IN_USE: 500,
  CONTAINER_ENGINE_UNAVAILABLE: 500,
  COMPUTE_REQUEST_INVALID: 500,
  COMPUTE_UNSETTLED: 500,
  COMPUTE_ASK_FAILED: 500,
  COMPUTE_NOT_CONFIGURED: 500,
  SESSION_NOT_OWNED: 500,
  SECRET_MISSING: 500,
  SECRET_MALFORMED: 500,
  SECRET_NOT_FOUND: 500,
  SECRET_UNREADABLE: 500,
  SECRET_PUT_FAILED: 500,
  SECRET_TARGET_UNKNOWN: 500,
  SECRET_VALUES_INVALID: 500,
  FETCH_REFUSED: 500,
  FETCH_UNRESOLVED: 500,
  FETCH_REDIRECTS: 500,
  FETCH_TOO_LARGE: 500,
  FETCH_ENCODING: 500,
  NOT_REGULAR_FILE: 500,
  PATH_OUTSIDE_WORKSPACE: 500,
  PATH_SYMLINK: 500,
  PATH_NOT_FOUND: 500,
  PATH_NOT_FOLDER: 500,
  FILE_ACCESS_FAILED: 500,
  AGENT_NOT_DEPLOYED: 500,
  FILE_CHANGED: 500,
  FILE_CORRUPT: 500,
  HOLDER_GONE: 500,
  INTERRUPTED: 500,
  MANIFEST_INVALID: 500,
  MANIFEST_MISSING: 500,
  MANIFEST_OTHER_AGENT: 500,
  PATH_INVALID: 500,
  STAGING_DOCUMENT_INVALID: 500,
  STAGING_DOCUMENT_TOO_LARGE: 500,
  STAGING_INCOMPLETE: 500,
  STAGING_KEY_INVALID: 500,
  STAGING_OBJECT_MISSING: 500,
  STAGING_PREFIX_INVALID: 500,
  TARGET_BLOCKED: 500,
  TASK_FAILED: 500,
  TASK_TIMEOUT: 500,
  TRANSFER_UNVERIFIED: 500,
  WORKSPACE_TASK_NOT_STARTED: 500,
  WORKSPACE_TOO_LARGE: 500,
  WORKSPACE_TOO_MANY_FILES: 500,
  // Media (#16): a key that is not one, or not the asker's; a file over a limit; nothing kept at a key.
  MEDIA_KEY_INVALID: 400,
  MEDIA_NOT_OWNED: 403,
  MEDIA_TOO_LARGE: 413,
  MEDIA_MISSING: 404,
  TRANSCRIPTION_FAILED: 500,
  SPEECH_FAILED: 500,
  // The fleet's skills bundle an agent was given is not one (#19): the deployment's fault, not the caller's.
  FLEET_SKILLS_INVALID: 500,
} as const satisfies Record<ErrorCode, ErrorStatus>;

export interface ErrorAnswer {
  status: Exclude<ErrorStatus, 500>;
  body: { error: string; code: ErrorCode };
}

/**
 * The answer to an error the caller can act on: its code's status, its message and its code.
 * Undefined for anything else — an error of another kind, or a code whose status is 500 —
 * which the edge logs and answers with a bare "internal error" (its message may say more
 * about our insides than a caller should learn).
 */
export function errorAnswer(err: unknown): ErrorAnswer | undefined {
  if (!(err instanceof ClawfleetError)) return undefined;
  const status: ErrorStatus = ERROR_STATUS[err.code] ?? 500;
  return status === 500 ? undefined : { status, body: { error: err.message, code: err.code } };
}

/** Whether a code read from outside (a one-off task's result document) is one of ours. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
