// sessions_send and cron: requests to the control plane, sent on the outbox. The runtime
// never acts on them itself; the control plane checks each against config (agentToAgent
// allow, cron ownership) and acts or refuses, so the tool reports "requested", not "done".
import { z } from 'zod';
import { CronUpsertEnvelopeSchema, PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import type { Clock } from '../../../shared/ports.ts';
import { defineTool, type AgentTool } from './tool.ts';

const AgentId = z.string().regex(/^[a-z][a-z0-9-]{0,23}$/, 'must be an agent id like "fran"');

export function requestTools(agentId: string, clock: Clock): AgentTool[] {
  return [
    defineTool({
      name: 'sessions_send',
      description:
        'Send a message to another agent of this fleet. Its answer arrives later as a message in this session. The fleet config decides which agents you may message.',
      schema: z.strictObject({ agentId: AgentId, message: z.string().min(1).max(100_000) }),
      async run({ agentId: to, message }, ctx) {
        if (to === agentId) return { text: 'you cannot message yourself', isError: true };
        // The turn's own inbound: the control plane carries its conversation (and hop count) on.
        const id = await ctx.request((id) => ({
          v: PROTOCOL_VERSION,
          kind: 'agent_send',
          id,
          agentId,
          sessionKey: ctx.sessionKey,
          inboundId: ctx.inboundId,
          toAgentId: to,
          text: message,
          ts: clock.now(),
        }));
        return `message to ${to} requested (${id}); its answer will arrive in this session`;
      },
    }),
    defineTool({
      name: 'cron',
      description:
        'Schedule (add/update) or remove one of your own cron jobs. schedule: {kind:"at", at:ISO-8601} once, {kind:"every", everyMs} repeating, or {kind:"cron", expr, tz?}. sessionTarget "main" runs in your main session with its history, "isolated" in a fresh session.',
      schema: z.discriminatedUnion('action', [
        z.strictObject({
          action: z.enum(['add', 'update']),
          // The envelope's own schemas (shared/protocol, zod/mini), narrowed for a tool call.
          jobId: CronUpsertEnvelopeSchema.shape.jobId.check(z.regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" and "-"')),
          schedule: CronUpsertEnvelopeSchema.shape.schedule,
          sessionTarget: z._default(CronUpsertEnvelopeSchema.shape.sessionTarget, 'main'),
          message: CronUpsertEnvelopeSchema.shape.message,
        }),
        z.strictObject({ action: z.literal('remove'), jobId: z.string().min(1).max(64) }),
      ]),
      async run(args, ctx) {
        if (args.action === 'remove') {
          const id = await ctx.request((id) => ({ v: PROTOCOL_VERSION, kind: 'cron_delete', id, agentId, jobId: args.jobId, ts: clock.now() }));
          return `removal of cron job ${args.jobId} requested (${id})`;
        }
        const { jobId, schedule, sessionTarget, message } = args;
        const id = await ctx.request((id) => ({
          v: PROTOCOL_VERSION,
          kind: 'cron_upsert',
          id,
          agentId,
          jobId,
          schedule,
          sessionTarget,
          message,
          ts: clock.now(),
        }));
        return `cron job ${jobId} requested (${id}); the control plane schedules it`;
      },
    }),
  ];
}
