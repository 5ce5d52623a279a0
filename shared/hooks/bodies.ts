// The request bodies of POST /hooks/agent and /hooks/wake, as OpenClaw defines them:
// https://docs.openclaw.ai/automation/cron-jobs/webhooks (and docs/automation/webhook.md
// in the openclaw repository). Fields that map onto our protocol are accepted; OpenClaw
// fields we cannot honour yet are refused with the reason, never silently ignored; any
// other field is refused by name. Every problem is reported at once.
import * as z from '../zod.ts';
import { formatPath } from '../errors.ts';

const AgentHookBodySchema = z.strictObject({
  /** The prompt for the agent turn. */
  message: z.string().check(z.minLength(1, 'must not be empty')),
  /** A human-readable name for the hook ("GitHub"); names the default session. */
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  agentId: z.optional(z.string().check(z.minLength(1))),
  sessionKey: z.optional(z.string().check(z.minLength(1))),
  /** We queue and wake at once: "now" is what we do. */
  wakeMode: z.optional(z.literal('now')),
  /** Replies to a hook's own session are logged, not delivered: false is what we do. */
  deliver: z.optional(z.literal(false)),
});
export type AgentHookBody = z.infer<typeof AgentHookBodySchema>;

const WakeHookBodySchema = z.strictObject({
  /** The system event, e.g. "New email received". */
  text: z.string().check(z.minLength(1, 'must not be empty')),
  mode: z.optional(z.literal('now')),
});
export type WakeHookBody = z.infer<typeof WakeHookBodySchema>;

type Unsupported = Record<string, (value: unknown) => string | undefined>;

const NOT_DELIVERED = 'replies to a hook session are logged, not delivered to a chat (not supported yet)';
const QUEUED_AT_ONCE = 'clawfleet queues the event at once and wakes the agent (not supported yet); omit it or send "now"';

/** OpenClaw fields of /hooks/agent we cannot honour yet, with the reason a caller is told. */
const AGENT_UNSUPPORTED: Unsupported = {
  deliver: (v) => (v === true ? `deliver=true: ${NOT_DELIVERED}; omit deliver or send false` : undefined),
  channel: () => `channel: ${NOT_DELIVERED}`,
  to: () => `to: ${NOT_DELIVERED}`,
  model: () => 'model: per-request model overrides are not supported yet; the agent answers with its configured model',
  thinking: () => 'thinking: per-request thinking levels are not supported yet',
  timeoutSeconds: () => 'timeoutSeconds: per-request turn timeouts are not supported yet; the runtime’s own limits apply',
  wakeMode: (v) => (v === 'next-heartbeat' ? `wakeMode="next-heartbeat": ${QUEUED_AT_ONCE}` : undefined),
};

const WAKE_UNSUPPORTED: Unsupported = {
  mode: (v) => (v === 'next-heartbeat' ? `mode="next-heartbeat": ${QUEUED_AT_ONCE}` : undefined),
};

type BodyResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

function parseBody<T>(json: unknown, schema: z.ZodMiniObject, unsupported: Unsupported): BodyResult<T> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, problems: ['the body must be a JSON object'] };
  const fields = json as Record<string, unknown>;
  const known = new Set([...Object.keys(schema.shape), ...Object.keys(unsupported)]);
  const problems: string[] = [];
  const unknown = Object.keys(fields).filter((k) => !known.has(k));
  if (unknown.length > 0) problems.push(`unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!known.has(key)) continue;
    const reason = unsupported[key]?.(value);
    if (reason) problems.push(reason);
    else rest[key] = value;
  }
  const parsed = schema.safeParse(rest);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${formatPath(i.path) || '(body)'}: ${i.message}`));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: parsed.data as T };
}

export const parseAgentHookBody = (json: unknown) => parseBody<AgentHookBody>(json, AgentHookBodySchema, AGENT_UNSUPPORTED);
export const parseWakeHookBody = (json: unknown) => parseBody<WakeHookBody>(json, WakeHookBodySchema, WAKE_UNSUPPORTED);
