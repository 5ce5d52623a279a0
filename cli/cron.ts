// `clawfleet cron list|run <job>`: the fleet's cron jobs from the config, and a manual run
// that queues the job's cron envelope for its agent (locally or on AWS), with the origin its
// answer is delivered to recorded first, as λ cron-dispatch records it.
import { z } from 'zod';
import { awsErrorText, awsSettings } from './aws-env.ts';
import { CliError, COMMON_HELP, EXIT, parse, str, table, usageError, type Command } from './command.ts';
import { describeSchedule, manualCronEnvelope } from './cron-envelope.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { localAdmin } from './local-admin.ts';

const HELP = `Usage: clawfleet cron list [--config clawfleet.json]
       clawfleet cron run <job-id> [--aws]

list  the cron jobs in the config: id, agent, schedule, session, what it does
run   queues the job's trigger for its agent now (a cron envelope on the agent's queue),
      whatever its schedule; prints the envelope id

${COMMON_HELP}`;

export const cronCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return io.out(HELP), EXIT.ok;
    if (sub !== 'list' && sub !== 'run') throw usageError(sub ? `unknown subcommand "${sub}"` : 'missing subcommand', HELP);
    const p = parse(
      rest,
      { config: { type: 'string', default: 'clawfleet.json' }, state: { type: 'string', default: '.clawfleet' }, aws: { type: 'boolean', default: false } },
      HELP,
      io,
      sub === 'run' ? { min: 1, max: 1 } : { min: 0, max: 0 },
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const jobs = config.cron?.jobs ?? [];

    if (sub === 'list') {
      if (!jobs.length) return io.out('no cron jobs in the config (cron.jobs)'), EXIT.ok;
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
    const envelope = manualCronEnvelope(job, Date.now());
    if (p.values.aws) {
      try {
        // The AWS SDK loads only for --aws. Queued as local mode's enqueue does: the origin and
        // session recorded first, so the turn's reply is delivered.
        const [{ DynamoDBClient }, { DynamoDBDocumentClient }, { SQSClient }, { DynamoInboundOrigins }, { DynamoSessionRegistry }, { SqsAgentQueues }, { tableNames }, { enqueueForOperator }, { systemClock }] =
          await Promise.all([
            import('@aws-sdk/client-dynamodb'),
            import('@aws-sdk/lib-dynamodb'),
            import('@aws-sdk/client-sqs'),
            import('../shared/adapters/aws/dynamo-inbound-origins.ts'),
            import('../shared/adapters/aws/dynamo-tables.ts'),
            import('../shared/adapters/aws/sqs-queues.ts'),
            import('../shared/config/names.ts'),
            import('../shared/control/operator-enqueue.ts'),
            import('../shared/ports.ts'),
          ]);
        const settings = awsSettings(io);
        const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(settings));
        const tables = tableNames(config.fleet);
        await enqueueForOperator(envelope, {
          config,
          queues: new SqsAgentQueues(new SQSClient(settings), config.fleet),
          sessions: new DynamoSessionRegistry(dynamo, tables.sessions),
          origins: new DynamoInboundOrigins(dynamo, tables.origins),
          clock: systemClock,
        });
      } catch (err) {
        throw new CliError(EXIT.failed, awsErrorText(`cannot queue ${jobId} for ${job.agentId}`, err));
      }
    } else {
      await localAdmin(str(p.values.state)!, io).post('/admin/enqueue', { envelope }, z.object({ envelopeId: z.string() }));
    }
    io.out(`queued ${jobId} for ${job.agentId}: envelope ${envelope.id}`);
    return EXIT.ok;
  },
};
