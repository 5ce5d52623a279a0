// `clawfleet cron list|run <job>`: the fleet's cron jobs from the config, and a manual run
// that fires the job's trigger now through the same dispatch as its schedule (λ cron-dispatch's
// core, locally or on AWS): the session and the answer's origin recorded, the agent woken.
import { z } from 'zod';
import type { FleetConfig } from '../shared/config/schema.ts';
import { configJobTrigger } from '../shared/cron/config-schedules.ts';
import { awsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, COMMON_HELP, commonOptions, EXIT, parse, str, table, type Command, choose } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { reachLocalFleet } from './local-admin.ts';

const HELP = `Usage: clawfleet cron list [--config clawfleet.json]
       clawfleet cron run <job-id> [--aws]

list  the cron jobs in the config: id, agent, schedule, session, what it does
run   fires the job now, whatever its schedule, as its schedule would (a cron envelope on
      the agent's queue, its answer delivered as the job says, the agent woken if it
      sleeps); prints the envelope id

${COMMON_HELP}`;

export const cronCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['list', 'run'], HELP);
    const p = parse(rest, commonOptions, HELP, io, sub === 'run' ? { min: 1, max: 1 } : { min: 0, max: 0 });
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const jobs = config.cron?.jobs ?? [];

    if (sub === 'list') {
      if (!jobs.length) return (io.out('no cron jobs in the config (cron.jobs)'), EXIT.ok);
      const rows = [['JOB', 'AGENT', 'SCHEDULE', 'SESSION', 'DOES']];
      for (const j of jobs) {
        const does = j.payload.kind === 'systemEvent' ? `system event: ${j.payload.text}` : `agent turn: ${j.payload.message}`;
        rows.push([j.id, j.agentId, describeSchedule(j), j.sessionTarget, does.length > 60 ? `${does.slice(0, 59)}…` : does]);
      }
      io.out(table(rows));
      return EXIT.ok;
    }

    const jobId = p.positionals[0]!;
    const job = jobs.find((j) => j.id === jobId);
    if (!job) throw new CliError(EXIT.usage, `no cron job "${jobId}"; jobs: ${jobs.map((j) => j.id).join(', ') || '(none)'}`);
    const trigger = configJobTrigger(job);
    let outcome: { queued?: string | undefined; skipped?: string | undefined };
    let where: string;
    if (p.values.aws) {
      const aws = awsSettings(io);
      where = `fleet "${config.fleet}" ${await (await import('./aws-where.ts')).awsWhere(config.fleet, aws)}`;
      try {
        // The AWS SDK loads only for --aws.
        const [{ randomUUID }, { awsOperatorControlPlane }, { dispatchTrigger }] = await Promise.all([
          import('node:crypto'),
          import('./aws-control-plane.ts'),
          import('../shared/control/cron-dispatch.ts'),
        ]);
        const cp = awsOperatorControlPlane(config, aws, io);
        outcome = await dispatchTrigger(trigger, Date.now(), cp.cronDispatchDeps(), { id: randomUUID() });
      } catch (err) {
        throw new CliError(EXIT.failed, awsErrorText(`cannot queue ${jobId} for ${job.agentId}`, err, aws));
      }
    } else {
      // The fleet running there must be the config's, and run the job's agent: otherwise it says which fleet it is and what it runs.
      const reached = await reachLocalFleet(str(p.values.state)!, io, config, job.agentId);
      where = reached.where;
      outcome = await reached.admin.post('/admin/cron/run', { trigger }, z.object({ queued: z.string().optional(), skipped: z.string().optional() }));
    }
    if (!outcome.queued) throw new CliError(EXIT.failed, `${jobId} not queued in ${where}: ${outcome.skipped ?? 'no reason given'}`);
    io.out(`queued ${jobId} for ${job.agentId} in ${where}: envelope ${outcome.queued}`);
    return EXIT.ok;
  },
};

/** How a job's schedule reads in the list. */
function describeSchedule(job: NonNullable<FleetConfig['cron']>['jobs'][number]): string {
  const s = job.schedule;
  if (s.kind === 'at') return `at ${s.at}`;
  if (s.kind === 'every') return `every ${s.every}`;
  return `cron "${s.expr}"${s.tz ? ` (${s.tz})` : ''}`;
}
