// `clawfleet cost`: a monthly estimate for the fleet in the config — compute per agent
// (Fargate or Spot, Graviton or x86, hibernating or always on), plus the control plane's
// Lambda, SQS, DynamoDB, Secrets Manager and logs — printing the prices it used and their date,
// and the compute per runtime kind (an openclaw agent's task is sized for its gateway).
import { runtimeArchitecture } from '../shared/config/architecture.ts';
import { DEFAULT_MAX_SESSIONS } from '../shared/runtime-limits.ts';
import { BROWSER_MIN_SIZE, browserEnabled } from '../shared/config/browser-size.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { DEFAULT_RUNTIME_KIND, kindPlacementProblem } from '../shared/config/runtime-kinds.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { CostDeps } from './cost-actual.ts';
import type { CostEstimate } from './cost-estimate.ts';
import { EXIT, parse, plural, str, table, usageError, type CliIO, type Command } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { DRAFT_INTERVAL_MS, streamingMode } from '../shared/control/streaming.ts';
import { FARGATE_PRICES, HOURS_PER_MONTH, PRICES, PRICES_DATE, PRICES_REGION } from './aws-prices.ts';

const HELP = `Usage: clawfleet cost [--config clawfleet.json] [--messages-per-day 50] [--awake-hours-per-day 2] [--writing-seconds 8] [--files-per-day 5]
                      [--actual]

Estimates the monthly AWS bill of the fleet in us-east-1, per agent and in total:
  compute  each agent's Fargate size on its CPU architecture (arm64 unless it says x86_64),
           on-demand vs Spot, always on vs hibernating (awake
           only --awake-hours-per-day, its idle timeout included; alwaysOn agents never sleep)
  control  Lambda (webhook, outbox, health each minute), SQS FIFO requests (long polls of
           awake runtimes included), DynamoDB requests, Secrets Manager (one secret per agent
           plus the control plane's), CloudWatch Logs
  media    S3 for attachments and the files agents send: each kept media.expireDays (default
           30) at ~1 MB, one PUT and one GET on its way in or out
Assumptions are per agent and printed; prices and their date are printed too.

With --actual, what the deployed fleet did cost, from the account's bill (Cost Explorer,
unblended, for last month and this month so far), per agent beside its estimate: resources
tagged clawfleet:fleet=<fleet>, grouped by their clawfleet:agent tag (the control plane's
say "control plane"). Both tags must be activated as cost allocation tags first; the command says how
if they are not. Cost Explorer charges $0.01 per request: a run makes two or three.

  --config <path>             the fleet config (default clawfleet.json)
  --messages-per-day <n>      messages each agent handles a day (default 50)
  --awake-hours-per-day <h>   how long a hibernating agent is up a day (default 2)
  --writing-seconds <s>       how long the model writes an answer, which streamed replies
                              show as drafts (default 8; streaming "off" or "block" sends none,
                              "progress" at most as many, only while tools run)
  --files-per-day <n>         photos, voice messages and files each agent gets or sends a day (default 5)
  --actual                    the bill per agent beside the estimate (AWS credentials; Cost Explorer)`;

/** What one attachment or sent file weighs on average, for the media estimate (a phone photo, a voice note, a PDF). */
export const MEDIA_FILE_MB = 1;

const money = (n: number) => `$${n < 10 ? n.toFixed(2) : n.toFixed(0)}`;

/**
 * Drafts a turn sends while the model writes for `seconds`: the first one interval after it
 * starts writing (an answer written sooner sends none), then at most one per interval
 * (runtime-image/src/stream/draft-stream.ts).
 */
export function draftsPerTurn(seconds: number, intervalMs: number): number {
  // A draft due just as the answer is done is not sent: the reply is.
  return Math.max(0, Math.floor((seconds * 1000 - 1) / intervalMs));
}

export function estimateCost(config: FleetConfig, messagesPerDay: number, awakeHoursPerDay: number, writingSeconds = 8, filesPerDay = 5): CostEstimate {
  const P = PRICES;
  const days = HOURS_PER_MONTH / 24;
  const agents = config.agents.list.map((a) => {
    const resolved = resolveAgent(config, a.id);
    const r = resolved.runtime;
    // A browser needs a larger task (synth refuses a smaller one): counted at least that size.
    const browser = browserEnabled(resolved);
    const cpus = Math.max(r.cpus ?? 0.25, browser ? BROWSER_MIN_SIZE.cpus : 0);
    const memoryGb = Math.max(r.memoryMb ?? 512, browser ? BROWSER_MIN_SIZE.memoryMb : 0) / 1024;
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
      browser,
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
  const modes = Object.keys(config.channels.telegram?.accounts ?? {}).map((id) => streamingMode(config, id));
  // Drafts are partial streaming's, and progress streaming's while tools run (priced as partial's: at most as many);
  // block streaming sends blocks instead (priced per block below, not per turn).
  const streams = modes.includes('partial') || modes.includes('progress');
  const drafts = {
    direct: streams ? draftsPerTurn(writingSeconds, DRAFT_INTERVAL_MS.direct) : 0,
    group: streams ? draftsPerTurn(writingSeconds, DRAFT_INTERVAL_MS.group) : 0,
  };
  // Priced as private chats, the dearer case.
  const draftsMonth = messages * drafts.direct;
  const awakeHours = agents.reduce((s, a) => s + a.awakeHours, 0);
  // Lambda (arm64): webhook + outbox (reply, typing, status) per message, health each minute; 512 MB, ~200 ms.
  const invocations = messages * 4 + draftsMonth + HOURS_PER_MONTH * 60;
  const lambda = invocations * P.lambdaRequest + invocations * 0.5 * 0.2 * P.lambdaGbSecond;
  // SQS: per message send, receive, extend, delete, 3 outbox sends + 3 Lambda polls; while
  // awake, a 20 s long poll per session slot.
  const sqsRequests = messages * 10 + draftsMonth * 3 + awakeHours * 180 * DEFAULT_MAX_SESSIONS;
  const sqs = Math.max(0, sqsRequests - P.sqsFreeRequests) * P.sqsFifoRequest;
  // DynamoDB: dedupe read+write, session write+read, 2 delivery writes per message; health reads each minute per agent.
  const dynamo = messages * (4 * P.dynamoWrite + 2 * P.dynamoRead) + draftsMonth * P.dynamoRead + HOURS_PER_MONTH * 60 * n * P.dynamoRead;
  const streamingMonth =
    draftsMonth * (P.lambdaRequest + 0.5 * 0.2 * P.lambdaGbSecond) +
    (sqsRequests > P.sqsFreeRequests ? Math.min(draftsMonth * 3, sqsRequests - P.sqsFreeRequests) * P.sqsFifoRequest : 0) +
    draftsMonth * P.dynamoRead;
  const secretCount = n + 3;
  // Each runtime start reads its secret; the Lambdas read theirs with a 5-minute cache.
  const secretCalls = awakeHours + HOURS_PER_MONTH * 12 * 3;
  const secrets = secretCount * P.secretMonth + (secretCalls / 10_000) * P.secretPer10kCalls;
  // ~2 KB of log per message handled, ~50 MB per awake agent-month of idle noise.
  const logs = ((messages * 2) / 1e6 + (awakeHours / HOURS_PER_MONTH) * 0.05) * P.logsIngestGb;
  // Media (#16): each file is kept media.expireDays (the bucket's lifecycle), so the bucket
  // holds that many days of files; one PUT (webhook or runtime) and one GET (runtime or outbox) each.
  const files = n * filesPerDay * days;
  const storedGb = (n * filesPerDay * (config.media?.expireDays ?? 30) * MEDIA_FILE_MB) / 1024;
  const media = { storedGb, storage: storedGb * P.s3GbMonth, requests: files * (P.s3Put + P.s3Get) };
  const computeConfigured = agents.reduce((s, a) => s + a.configured, 0);
  const ipv4 = awakeHours * P.publicIpv4Hour;
  return {
    agents: agents.map(({ awakeHours: _h, ...a }) => a),
    lambda,
    sqs,
    dynamo,
    secrets,
    logs,
    media,
    ipv4,
    computeConfigured,
    total: computeConfigured + lambda + sqs + dynamo + secrets + logs + media.storage + media.requests + ipv4,
    /** The single VM the fleet replaces, for comparison: t3.large, 30 GB gp3, one public IPv4. */
    vm: HOURS_PER_MONTH * (P.t3LargeHour + P.publicIpv4Hour) + 30 * P.gp3GbMonth,
    streaming: {
      draftsPerTurn: drafts,
      perDraft: { envelopes: 1, lambdaRecords: 1, sqsRequests: 3, dynamoReads: 1 },
      month: streamingMonth,
      blocks: modes.includes('block'),
    },
  };
}

export async function runCost(args: string[], io: CliIO, deps: CostDeps = {}): Promise<number> {
  const p = parse(
    args,
    {
      config: { type: 'string', default: 'clawfleet.json' },
      'messages-per-day': { type: 'string', default: '50' },
      'awake-hours-per-day': { type: 'string', default: '2' },
      'writing-seconds': { type: 'string', default: '8' },
      'files-per-day': { type: 'string', default: '5' },
      actual: { type: 'boolean', default: false },
    },
    HELP,
    io,
  );
  if (!p) return EXIT.ok;
  const perDay = Number(str(p.values['messages-per-day']));
  const awake = Number(str(p.values['awake-hours-per-day']));
  if (!(perDay >= 0)) throw usageError('--messages-per-day must be a number ≥ 0', HELP);
  if (!(awake >= 0 && awake <= 24)) throw usageError('--awake-hours-per-day must be between 0 and 24', HELP);
  const writing = Number(str(p.values['writing-seconds']));
  if (!(writing >= 0 && writing <= 600)) throw usageError('--writing-seconds must be between 0 and 600', HELP);
  const filesPerDay = Number(str(p.values['files-per-day']));
  if (!(filesPerDay >= 0)) throw usageError('--files-per-day must be a number ≥ 0', HELP);
  const config = loadFleetConfig(str(p.values.config)!, io);
  const e = estimateCost(config, perDay, awake, writing, filesPerDay);
  if (p.values.actual) {
    const { printActualCost } = await import('./cost-actual.ts');
    return printActualCost(config, e, io, deps);
  }
  const P = PRICES;
  const [X, A] = [FARGATE_PRICES.x86_64, FARGATE_PRICES.arm64];

  const rows = [['AGENT', 'KIND', 'SIZE', 'ALWAYS ON', 'ALWAYS ON (SPOT)', 'AS CONFIGURED']];
  for (const a of e.agents) {
    const how = `${a.hibernates ? `hibernating, ${awake}h/day awake` : 'always on'}${a.spot ? ', spot' : ''}`;
    rows.push([
      a.id,
      a.kind,
      `${a.cpus} vCPU / ${a.memoryGb} GB ${a.architecture}${a.browser ? ' (browser)' : ''}`,
      money(a.onDemandAlwaysOn),
      money(a.spotAlwaysOn),
      `${money(a.configured)} (${how})`,
    ]);
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
      [
        'S3 media storage',
        `${money(e.media.storage)} (${e.media.storedGb.toFixed(1)} GB: ${plural(filesPerDay, 'file')} of ~${MEDIA_FILE_MB} MB per agent per day, kept ${config.media?.expireDays ?? 30} days)`,
      ],
      ['S3 media requests', `${money(e.media.requests)} (a PUT and a GET per file)`],
      ['Public IPv4', `${money(e.ipv4)} (one per running task)`],
    ]),
  );
  const d = e.streaming.draftsPerTurn;
  io.out(
    d.direct === 0
      ? `\nStreamed replies as drafts: none (no account streams "partial", or answers written within a draft interval send no draft).`
      : `\nStreamed replies, per turn written over ${writing} s: ${plural(d.direct, 'draft')} in a private chat, ${d.group} in a group; each draft is 1 outbox envelope, ` +
          `1 λ outbox record, 3 SQS requests (send, receive, delete) and 1 DynamoDB read — ${money(e.streaming.month)}/month of the figures above (priced as private chats).`,
  );
  if (e.streaming.blocks)
    io.out(
      `Block streaming (streaming "block"): each block of an answer is a message like a reply part — 1 outbox envelope, 1 λ outbox record, ` +
        `3 SQS requests and 2 DynamoDB writes (its delivery claim) — about one per blockStreamingChunk.minChars of answer; not in the figures above, which count one reply per message.`,
    );
  const allOn = e.agents.reduce((s, a) => s + a.onDemandAlwaysOn, 0);
  const allSpot = e.agents.reduce((s, a) => s + a.spotAlwaysOn, 0);
  const shared = e.lambda + e.sqs + e.dynamo + e.secrets + e.logs + e.media.storage + e.media.requests;
  const allIpv4 = e.agents.length * HOURS_PER_MONTH * P.publicIpv4Hour;
  io.out(
    `\nTotal as configured: ${money(e.total)}/month  (everything always on: ${money(allOn + shared + allIpv4)}; always on with Spot: ${money(allSpot + shared + allIpv4)})`,
  );
  io.out(`For comparison, the one VM a single OpenClaw gateway runs on (t3.large on demand, 30 GB gp3, public IPv4): ${money(e.vm)}/month.`);
  io.out(`Not included: NAT gateways (none by default), data transfer, model API usage.`);
  io.out(
    `\nPrices used (${PRICES_REGION}, list prices as of ${PRICES_DATE}, from cli/aws-prices.ts; verify before relying on a total): ` +
      `Fargate x86_64 $${X.vcpuHour}/vCPU-h + $${X.gbHour}/GB-h, arm64 (Graviton) $${A.vcpuHour}/vCPU-h + $${A.gbHour}/GB-h; ` +
      `Fargate Spot x86_64 ~$${X.spotVcpuHour}/vCPU-h + $${X.spotGbHour}/GB-h (varies; arm64 Spot estimated with the same discount); ` +
      `Lambda arm64 $0.20/M requests + $${P.lambdaGbSecond}/GB-s; ` +
      `SQS FIFO $0.50/M requests (1M free); DynamoDB $0.625/M writes, $0.125/M reads; Secrets Manager $${P.secretMonth}/secret-month + $${P.secretPer10kCalls}/10k calls; ` +
      `CloudWatch Logs $${P.logsIngestGb}/GB ingested; S3 Standard $${P.s3GbMonth}/GB-month, $0.005/1k PUTs, $0.0004/1k GETs; public IPv4 $${P.publicIpv4Hour}/h; t3.large $${P.t3LargeHour}/h, gp3 $${P.gp3GbMonth}/GB-month.`,
  );
  return EXIT.ok;
}

export const costCommand: Command = { run: (args, io) => runCost(args, io) };
