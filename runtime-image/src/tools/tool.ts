// The vocabulary of tools: what the agent loop calls, what a tool returns, and how a
// built-in tool is declared from a zod schema (its JSON Schema is what the model sees,
// and every call's arguments are parsed with it before the tool runs).
import { z } from 'zod';
import type { OutboundEnvelope } from '../../../shared/protocol/envelopes.ts';
import type { ToolSpec } from '../model/model.ts';
import type { Provenance } from '../framing/untrusted-content.ts';

export interface ToolResult {
  text: string;
  isError?: boolean;
  /**
   * Set when the text came from outside (a web page, an MCP server): the agent loop
   * masks, cuts and then wraps it as untrusted data, so the end marker is never cut off.
   */
  untrusted?: Provenance | undefined;
}

/** What a tool call knows about the turn it runs in. */
export interface ToolCallContext {
  signal: AbortSignal;
  /** The agent's session the turn answers in (an isolated cron run's job session, not its transcript's). */
  sessionKey: string;
  /** The inbound envelope of the turn: envelopes a tool sends derive their ids from it. */
  inboundId: string;
  /** Sends a request to the control plane (sessions_send, cron): the control plane decides. */
  request(make: (id: string) => OutboundEnvelope): Promise<string>;
}

export interface AgentTool extends ToolSpec {
  /** Parses raw arguments; a failure goes back to the model as an error result. */
  parse(args: unknown): { ok: true; value: unknown } | { ok: false; error: string };
  run(args: unknown, ctx: ToolCallContext): Promise<ToolResult>;
}

/** A tool with zod-checked arguments. Throwing inside `run` is fine: the loop makes it an error result. */
export function defineTool<S extends z.ZodType>(def: {
  name: string;
  description: string;
  schema: S;
  run(args: z.infer<S>, ctx: ToolCallContext): Promise<ToolResult | string>;
}): AgentTool {
  let parameters: Record<string, unknown> | undefined;
  return {
    name: def.name,
    description: def.description,
    // Worked out when first read — by the first model request, or just after the runtime is
    // ready (agent-runtime.ts): converting every built-in tool's schema at start was ~30 ms.
    get parameters() {
      if (!parameters) {
        const { $schema: _ignored, ...rest } = z.toJSONSchema(def.schema, { io: 'input' }) as Record<string, unknown>;
        parameters = rest;
      }
      return parameters;
    },
    parse(args) {
      const parsed = def.schema.safeParse(args);
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, error: argumentIssues(parsed.error) };
    },
    async run(args, ctx) {
      const out = await def.run(args as z.infer<S>, ctx);
      return typeof out === 'string' ? { text: out } : out;
    },
  };
}

/** Cuts text to `max` characters, saying how much was left out. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${text.length - max} more characters cut]`;
}

/** How a call's bad arguments are told to the model: the first five issues, each at its path. */
export function argumentIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
    .join('; ');
}
