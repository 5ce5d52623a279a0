// What every schedule passes to λ cron-dispatch: one versioned schema, so a schedule
// made by the CDK app from the config and one made for an agent's own job look alike.
import * as z from '../zod.ts';
import { CronJobSchema } from '../config/schema.ts';

/**
 * EventBridge Scheduler fills `<aws.scheduler.scheduled-time>` in a schedule's input, so each
 * firing carries its own time; it names the envelope, making a doubled invocation harmless.
 */
const scheduledTime = z.optional(z.string());

export const CronTriggerSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('job'),
    agentId: z.string(),
    jobId: z.string(),
    /** config: from clawfleet.json; agent: made by the agent with its cron tool. */
    owner: z.enum(['config', 'agent']),
    sessionTarget: z.enum(['main', 'isolated']),
    payload: CronJobSchema.shape.payload,
    delivery: CronJobSchema.shape.delivery,
    scheduledTime,
  }),
  z.strictObject({ v: z.literal(1), kind: z.literal('heartbeat'), agentId: z.string(), scheduledTime }),
]);
export type CronTrigger = z.infer<typeof CronTriggerSchema>;

/** Schedule names: `<owner>-<agent>-<job>`, so an agent can only ever touch its own jobs. */
export const scheduleName = (owner: 'config' | 'agent', agentId: string, jobId: string) => `${owner}-${agentId}-${jobId}`.slice(0, 64);
export const heartbeatScheduleName = (agentId: string) => `heartbeat-${agentId}`;

export const SCHEDULED_TIME_PLACEHOLDER = '<aws.scheduler.scheduled-time>';

/** The input a schedule passes: the trigger plus the placeholder for its firing time. */
export const scheduleInput = (trigger: CronTrigger) => JSON.stringify({ ...trigger, scheduledTime: SCHEDULED_TIME_PLACEHOLDER });
