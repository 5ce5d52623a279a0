// `clawfleet status`: each agent's state, model, queue and DLQ depth, last heartbeat and
// last error — from the running local fleet, or from AWS with --aws.
import { resolve } from 'node:path';
import { localAgentState } from '../local/agent-state.ts';
import { clusterName } from '../shared/config/names.ts';
import { FleetStatusSchema, type FleetStatus } from '../local/fleet-status.ts';
import { ago, COMMON_HELP, commonOptions, EXIT, parse, str, table, type Command } from './command.ts';
import { localAdmin } from './local-admin.ts';

const HELP = `Usage: clawfleet status [--config clawfleet.json] [--state .clawfleet] [--aws] [--json]

Shows every agent: state (awake, waking, asleep, and locally restarting, as the dashboard says),
model, queue depth (waiting / in flight), DLQ depth (inbound + outbound), last heartbeat
and last error, then each budgeted agent's spend against its caps today and this month
(UTC; while a cap is reached its messages are answered with a note and its cron jobs and
heartbeats pause), then the warnings each runtime reported (exec unsandboxed, or off for
want of a sandbox). Locally it asks the running fleet; with --aws it reads ECS
DescribeServices, SQS GetQueueAttributes, the registry table and the spend table.

${COMMON_HELP}
  --json            print the status as JSON`;

/** The status as the terminal shows it: where, the table, details, then each warning once. */
export function formatStatus(status: FleetStatus, now: number): string {
  const rows = [['AGENT', 'STATE', 'MODEL', 'QUEUE', 'DLQ', 'HEARTBEAT', 'LAST ERROR']];
  for (const a of status.agents) {
    rows.push([
      a.id,
      a.state,
      a.model,
      `${a.queue.visible}/${a.queue.inFlight}`,
      String(a.dlq + a.outboxDlq),
      ago(a.lastHeartbeat, now),
      a.lastError ? (a.lastError.length > 60 ? `${a.lastError.slice(0, 59)}…` : a.lastError) : '—',
    ]);
  }
  const details = status.agents.filter((a) => a.detail).map((a) => `  ${a.id}: ${a.detail}`);
  const warnings = groupWarnings(status.agents).map(({ agents, warning }) => `  ⚠ ${agents.join(', ')}: ${warning}`);
  const spend = status.agents.filter((a) => a.spend).map((a) => `  ${a.id}: ${a.spend}`);
  return `fleet "${status.fleet}" ${status.where}\n${table(rows)}${details.length ? `\n${details.join('\n')}` : ''}${spend.length ? `\nSpend (budgets):\n${spend.join('\n')}` : ''}${warnings.length ? `\nWarnings:\n${warnings.join('\n')}` : ''}\nQUEUE is waiting/in flight.`;
}

/** Each warning once, naming every agent that reported it (four agents without a sandbox say the same thing). */
export function groupWarnings(agents: readonly { id: string; warnings?: string[] | undefined }[]): { agents: string[]; warning: string }[] {
  const byText = new Map<string, string[]>();
  for (const a of agents) for (const w of new Set(a.warnings ?? [])) byText.set(w, [...(byText.get(w) ?? []), a.id]);
  return [...byText].map(([warning, ids]) => ({ agents: ids, warning }));
}

export const statusCommand: Command = {
  async run(args, io) {
    const p = parse(args, { ...commonOptions, json: { type: 'boolean', default: false } }, HELP, io);
    if (!p) return EXIT.ok;
    let status: FleetStatus;
    if (p.values.aws) {
      // The config and the AWS SDK load only for --aws, so a local status starts fast.
      const [{ AwsFleet }, { awsSettings }, { loadFleetConfig }] = await Promise.all([
        import('./aws-fleet.ts'),
        import('./aws-env.ts'),
        import('./fleet-config.ts'),
      ]);
      const config = loadFleetConfig(str(p.values.config)!, io);
      const aws = awsSettings(io);
      // Who we are (the credentials check) before the fleet's calls, then both said in the header.
      const where = await (await import('./aws-where.ts')).awsWhere(config.fleet, aws);
      status = { ...(await new AwsFleet(config, aws).status()), where: `${where} (cluster ${clusterName(config.fleet)})` };
    } else {
      const admin = localAdmin(str(p.values.state)!, io);
      const local = await admin.get('/admin/status', FleetStatusSchema);
      // The admin API reports the supervisor's process states; say them in the dashboard's words.
      status = {
        ...local,
        where: `at ${admin.url} (state in ${resolve(io.cwd, str(p.values.state)!)})`,
        agents: local.agents.map((a) => ({ ...a, state: localAgentState(a.state) })),
      };
    }
    io.out(p.values.json ? JSON.stringify(status, null, 2) : formatStatus(status, Date.now()));
    return EXIT.ok;
  },
};
