// `clawfleet cost`: a monthly estimate for the fleet in the config — compute per agent
// (Fargate or Spot, Graviton or x86, hibernating or always on), plus the control plane's
// Lambda, SQS, DynamoDB, Secrets Manager and logs — printing the prices it used and their date,
// and the compute per runtime kind (an openclaw agent's task is sized for its gateway).
import { runtimeArchitecture, type CpuArchitecture } from '../shared/config/architecture.ts';
import { DEFAULT_MAX_SESSIONS } from '../shared/runtime-limits.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { DEFAULT_RUNTIME_KIND, kindPlacementProblem, type RuntimeKind } from '../shared/config/runtime-kinds.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { EXIT, parse, plural, str, table, usageError, type Command } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { FARGATE_PRICES, HOURS_PER_MONTH, PRICES, PRICES_DATE, PRICES_REGION } from './prices.ts';

const HELP = `Usage: clawfleet cost [--config clawfleet.json] [--messages-per-day 50] [--awake-hours-per-day 2]

Estimates the monthly AWS bill of the fleet in us-east-1, per agent and in total:
  compute  each agent's Fargate size on its CPU architecture (arm64 unless it says x86_64),
           on-demand vs Spot, always on vs hibernating (awake
           only --awake-hours-per-day, its idle timeout included; alwaysOn agents never sleep)
  control  Lambda (webhook, outbox, health each minute), SQS FIFO requests (long polls of
           awake runtimes included), DynamoDB requests, Secrets Manager (one secret per agent
           plus the control plane's), CloudWatch Logs
Assumptions are per agent and printed; prices and their date are printed too.

  --config <path>             the fleet config (default clawfleet.json)
  --messages-per-day <n>      messages each agent handles a day (default 50)
  --awake-hours-per-day <h>   how long a hibernating agent is up a day (default 2)`;

const money = (n: number) => `$${n < 10 ? n.toFixed(2) : n.toFixed(0)}`;

export interface CostEstimate {
  agents: {
    id: string;
    kind: RuntimeKind;
    cpus: number;
    memoryGb: number;
    architecture: CpuArchitecture;
    hibernates: boolean;
    spot: boolean;
    onDemandAlwaysOn: number;
    spotAlwaysOn: number;
    configured: number;
  }[];
  lambda: number;
  sqs: number;
  dynamo: number;
  secrets: number;
  logs: number;
  /** Public IPv4 addresses of the running tasks. */
  ipv4: number;
  computeConfigured: number;
  total: number;
  /** The single VM the fleet replaces. */
  vm: number;
}

export function estimateCost(config: FleetConfig, messagesPerDay: number, awakeHoursPerDay: number): CostEstimate {
  const P = PRICES;
  const days = HOURS_PER_MONTH / 24;
  const agents = config.agents.list.map((a) => {
    const r = resolveAgent(config, a.id).runtime;
    const cpus = r.cpus ?? 0.25;
    const memoryGb = (r.memoryMb ?? 512) / 1024;
    const architecture = runtimeArchitecture(r);
    const onDemand = FARGATE_PRICES[architecture];
    // On Spot, priced on the architecture it would have there (x86_64 unless it names one).
    const spot = FARGATE_PRICES[runtimeArchitecture({ ...r, spot: true })];
    const onDemandHour = cpus * onDemand.vcpuHour + memoryGb * onDemand.gbHour;
    const spotHour = cpus * spot.spotVcpuHour + memoryGb * spot.spotGbHour;
    const hibernates = !r.alwaysOn;
    const hours = hibernates ? Math.min(24, awakeHoursPerDay) * days : HOURS_PER_MONTH;
    return {
      id: a.id,
      kind: r.kind ?? DEFAULT_RUNTIME_KIND,
      cpus,
      memoryGb,
      architecture,
      hibernates,
      spot: r.spot === true,
      onDemandAlwaysOn: onDemandHour * HOURS_PER_MONTH,
      spotAlwaysOn: spotHour * HOURS_PER_MONTH,
      configured: (r.spot ? spotHour : onDemandHour) * hours,
      awakeHours: hours,
    };
  });
  const n = agents.length;
  const messages = n * messagesPerDay * days;
  const awakeHours = agents.reduce((s, a) => s + a.awakeHours, 0);
  // Lambda (arm64): webhook + outbox (reply, typing, status) per message, health each minute; 512 MB, ~200 ms.
  const invocations = messages * 4 + HOURS_PER_MONTH * 60;
  const lambda = invocations * P.lambdaRequest + invocations * 0.5 * 0.2 * P.lambdaGbSecond;
  // SQS: per message send, receive, extend, delete, 3 outbox sends + 3 Lambda polls; while
  // awake, a 20 s long poll per session slot.
  const sqsRequests = messages * 10 + awakeHours * 180 * DEFAULT_MAX_SESSIONS;
  const sqs = Math.max(0, sqsRequests - P.sqsFreeRequests) * P.sqsFifoRequest;
  // DynamoDB: dedupe read+write, session write+read, 2 delivery writes per message; health reads each minute per agent.
  const dynamo = messages * (4 * P.dynamoWrite + 2 * P.dynamoRead) + HOURS_PER_MONTH * 60 * n * P.dynamoRead;
  const secretCount = n + 3;
  // Each runtime start reads its secret; the Lambdas read theirs with a 5-minute cache.
  const secretCalls = awakeHours + (HOURS_PER_MONTH * 12 * 3);
  const secrets = secretCount * P.secretMonth + (secretCalls / 10_000) * P.secretPer10kCalls;
  // ~2 KB of log per message handled, ~50 MB per awake agent-month of idle noise.
  const logs = ((messages * 2) / 1e6 + (awakeHours / HOURS_PER_MONTH) * 0.05) * P.logsIngestGb;
  const computeConfigured = agents.reduce((s, a) => s + a.configured, 0);
  const ipv4 = awakeHours * P.publicIpv4Hour;
  return {
    agents: agents.map(({ awakeHours: _h, ...a }) => a),
    lambda,
    sqs,
    dynamo,
    secrets,
    logs,
    ipv4,
    computeConfigured,
    total: computeConfigured + lambda + sqs + dynamo + secrets + logs + ipv4,
    /** The single VM the fleet replaces, for comparison: t3.large, 30 GB gp3, one public IPv4. */
    vm: HOURS_PER_MONTH * (P.t3LargeHour + P.publicIpv4Hour) + 30 * P.gp3GbMonth,
  };
}

export const costCommand: Command = {
  async run(args, io) {
    const p = parse(
      args,
      { config: { type: 'string', default: 'clawfleet.json' }, 'messages-per-day': { type: 'string', default: '50' }, 'awake-hours-per-day': { type: 'string', default: '2' } },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const perDay = Number(str(p.values['messages-per-day']));
    const awake = Number(str(p.values['awake-hours-per-day']));
    if (!(perDay >= 0)) throw usageError('--messages-per-day must be a number ≥ 0', HELP);
    if (!(awake >= 0 && awake <= 24)) throw usageError('--awake-hours-per-day must be between 0 and 24', HELP);
    const config = loadFleetConfig(str(p.values.config)!, io);
    const e = estimateCost(config, perDay, awake);
    const P = PRICES;
    const [X, A] = [FARGATE_PRICES.x86_64, FARGATE_PRICES.arm64];

    const rows = [['AGENT', 'KIND', 'SIZE', 'ALWAYS ON', 'ALWAYS ON (SPOT)', 'AS CONFIGURED']];
    for (const a of e.agents) {
      const how = `${a.hibernates ? `hibernating, ${awake}h/day awake` : 'always on'}${a.spot ? ', spot' : ''}`;
      rows.push([a.id, a.kind, `${a.cpus} vCPU / ${a.memoryGb} GB ${a.architecture}`, money(a.onDemandAlwaysOn), money(a.spotAlwaysOn), `${money(a.configured)} (${how})`]);
    }
    io.out(`Monthly estimate for fleet "${config.fleet}" (${plural(e.agents.length, 'agent')}, ${plural(perDay, 'message')} per agent per day):\n`);
    io.out(table(rows));
    const kinds = [...new Set(e.agents.map((a) => a.kind))];
    io.out(
      `\nCompute by runtime kind (as configured): ${kinds
        .map((k) => {
          const of = e.agents.filter((a) => a.kind === k);
          return `${k} ${plural(of.length, 'agent')} ${money(of.reduce((s, a) => s + a.configured, 0))}`;
        })
        .join('; ')}`,
    );
    for (const k of kinds) {
      const problem = kindPlacementProblem(k, 'aws');
      if (problem) io.out(`Note: ${problem.split(':')[0]} (\`cdk synth\` refuses it); its line prices the task it would need.`);
    }
    io.out(`\nControl plane and shared services:`);
    io.out(
      table([
        ['Lambda', money(e.lambda)],
        ['SQS FIFO', money(e.sqs)],
        ['DynamoDB on-demand', money(e.dynamo)],
        ['Secrets Manager', `${money(e.secrets)} (${e.agents.length + 3} secrets)`],
        ['CloudWatch Logs', money(e.logs)],
        ['Public IPv4', `${money(e.ipv4)} (one per running task)`],
      ]),
    );
    const allOn = e.agents.reduce((s, a) => s + a.onDemandAlwaysOn, 0);
    const allSpot = e.agents.reduce((s, a) => s + a.spotAlwaysOn, 0);
    const shared = e.lambda + e.sqs + e.dynamo + e.secrets + e.logs;
    const allIpv4 = e.agents.length * HOURS_PER_MONTH * P.publicIpv4Hour;
    io.out(
      `\nTotal as configured: ${money(e.total)}/month  (everything always on: ${money(allOn + shared + allIpv4)}; always on with Spot: ${money(allSpot + shared + allIpv4)})`,
    );
    io.out(`For comparison, the one VM a single OpenClaw gateway runs on (t3.large on demand, 30 GB gp3, public IPv4): ${money(e.vm)}/month.`);
    io.out(`Not included: NAT gateways (none by default), data transfer, model API usage.`);
    io.out(
      `\nPrices used (${PRICES_REGION}, list prices as of ${PRICES_DATE}, from cli/prices.ts; verify before relying on a total): ` +
        `Fargate x86_64 $${X.vcpuHour}/vCPU-h + $${X.gbHour}/GB-h, arm64 (Graviton) $${A.vcpuHour}/vCPU-h + $${A.gbHour}/GB-h; ` +
        `Fargate Spot x86_64 ~$${X.spotVcpuHour}/vCPU-h + $${X.spotGbHour}/GB-h (varies; arm64 Spot estimated with the same discount); ` +
        `Lambda arm64 $0.20/M requests + $${P.lambdaGbSecond}/GB-s; ` +
        `SQS FIFO $0.50/M requests (1M free); DynamoDB $0.625/M writes, $0.125/M reads; Secrets Manager $${P.secretMonth}/secret-month + $${P.secretPer10kCalls}/10k calls; ` +
        `CloudWatch Logs $${P.logsIngestGb}/GB ingested; public IPv4 $${P.publicIpv4Hour}/h; t3.large $${P.t3LargeHour}/h, gp3 $${P.gp3GbMonth}/GB-month.`,
    );
    return EXIT.ok;
  },
};
