// The cron storm's fleet: the example config (clawfleet.json, four agents) with N isolated
// cron jobs spread round-robin over the agents, all on one daily minute, each answering
// into a Telegram chat of its own (so an answer names its job). And the firings as
// EventBridge Scheduler makes them: each schedule's input with its scheduled time filled in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../shared/config/load.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { configSchedules } from '../shared/cron/config-schedules.ts';
import { CronTriggerSchema, SCHEDULED_TIME_PLACEHOLDER, scheduleInput, type CronTrigger } from '../shared/cron/trigger.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Job i answers into chat FIRST_CHAT + i: a private chat id, one per job. */
const FIRST_CHAT = 700_000;
export const chatOfJob = (i: number) => FIRST_CHAT + i;
export const jobOfChat = (chatId: number) => chatId - FIRST_CHAT;

/** `jobs` from the command line: a whole number from 1 to 100,000, or a clear error. */
export function jobsArg(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const n = Number(arg);
  if (!/^\d+$/.test(arg) || n < 1 || n > 100_000) throw new Error(`jobs must be a whole number from 1 to 100000, got ${JSON.stringify(arg)}`);
  return n;
}

/**
 * The example fleet renamed, its bots on `apiRoot`, with `jobs` isolated cron jobs due daily
 * at `minute` (UTC "HH:MM"). Job i belongs to agent i mod 4 and announces through that
 * agent's own bot.
 */
export function stormConfig(opts: { fleet: string; jobs: number; minute: string; apiRoot: string }): FleetConfig {
  const raw = JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'));
  raw.fleet = opts.fleet;
  raw.channels.telegram.apiRoot = opts.apiRoot;
  const agents: string[] = raw.agents.list.map((a: { id: string }) => a.id);
  const [hh, mm] = opts.minute.split(':').map(Number);
  raw.cron = {
    jobs: Array.from({ length: opts.jobs }, (_, i) => {
      const agentId = agents[i % agents.length]!;
      return {
        id: `storm-${i}`,
        agentId,
        schedule: { kind: 'cron', expr: `${mm} ${hh} * * *` },
        sessionTarget: 'isolated',
        payload: { kind: 'agentTurn', message: `Storm job ${i}: summarise the night's alerts.` },
        delivery: { mode: 'announce', accountId: agentId, to: String(chatOfJob(i)) },
      };
    }),
  };
  return parseConfig(raw);
}

/** What each job's schedule hands λ cron-dispatch when it fires at `scheduledIso`, in job order. */
export function firings(config: FleetConfig, scheduledIso: string): CronTrigger[] {
  return configSchedules(config)
    .filter((s) => s.trigger.kind === 'job')
    .map((s) => CronTriggerSchema.parse(JSON.parse(scheduleInput(s.trigger).replace(SCHEDULED_TIME_PLACEHOLDER, scheduledIso))));
}

/** `HH:MM` of a UTC time, the minute a daily cron expression names. */
export const utcMinute = (ms: number) => new Date(ms).toISOString().slice(11, 16);

export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
