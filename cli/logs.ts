// `clawfleet logs --agent <id> [--follow]`: a runtime's log lines — from the local log
// file (<state>/logs/<agent>.log), or from the agent's CloudWatch Logs group with --aws.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { agentLogGroupName } from '../shared/config/names.ts';
import { prettyLine } from '../local/pretty-log.ts';
import { runtimeLogPath } from '../local/runtime-logs.ts';
import { awsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, COMMON_HELP, commonOptions, EXIT, parse, str, usageError, type CliIO, type Command } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';

const HELP = `Usage: clawfleet logs --agent <id> [--follow] [--lines 50] [--since 1h] [--json] [--aws]

Prints the agent's runtime log: the last --lines lines, then (with --follow) new ones as
they come, until Ctrl-C. Locally from <state>/logs/<id>.log; with --aws from the log
group /clawfleet/<fleet>/agents/<id> (events of the last --since).

  --agent <id>      the agent (required)
  --follow, -f      keep printing new lines
  --lines <n>       how many recent lines (default 50)
  --since <dur>     with --aws: how far back, like 30m, 2h, 1d (default 1h)
  --json            the raw JSON lines
${COMMON_HELP}`;

const FOLLOW_POLL_MS = 500;

/** A JSON line as `clawfleet start` prints it, the agent's name in its column (a blank column and `agent=` on every line said it twice). */
function render(text: string, json: boolean, agentId: string): string {
  if (json) return text;
  try {
    const line: unknown = JSON.parse(text);
    if (typeof line === 'object' && line !== null && !Array.isArray(line)) return prettyLine(agentId, line as Record<string, unknown>);
  } catch {
    // not JSON: print as is
  }
  return text;
}

function durationMs(text: string, help: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!m) throw usageError(`--since must be a duration like 30m, 2h or 1d, got "${text}"`, help);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What to print, the same for the local file and CloudWatch Logs. */
interface LogsView {
  agentId: string;
  lines: number;
  follow: boolean;
  json: boolean;
}

async function localLogs(path: string, { agentId, lines, follow, json }: LogsView, io: CliIO): Promise<void> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    if (!follow) throw new CliError(EXIT.failed, `no log yet at ${path}; has this agent run under \`clawfleet start\` with this --state?`);
    size = 0;
  }
  const readRange = (from: number, to: number): string => {
    if (to <= from) return '';
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(to - from);
      readSync(fd, buf, 0, buf.length, from);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  };
  // The tail: enough of the end of the file for `lines` lines.
  const start = Math.max(0, size - lines * 2_000);
  const tail = readRange(start, size).split('\n');
  if (start > 0) tail.shift(); // begins mid-line
  for (const line of lines === 0 ? [] : tail.filter(Boolean).slice(-lines)) io.out(render(line, json, agentId));
  if (!follow) return;

  let offset = size;
  let partial = '';
  let stop = false;
  void io.interrupted().then(() => (stop = true));
  while (!stop) {
    await sleep(FOLLOW_POLL_MS);
    let now: number;
    try {
      now = statSync(path).size;
    } catch {
      continue;
    }
    if (now < offset) offset = 0; // rotated
    const chunk = partial + readRange(offset, now);
    offset = now;
    const parts = chunk.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) if (line) io.out(render(line, json, agentId));
  }
}

async function awsLogs(logGroupName: string, sinceMs: number, { agentId, lines, follow, json }: LogsView, io: CliIO): Promise<void> {
  // The AWS SDK loads only for --aws.
  const { CloudWatchLogEvents } = await import('../shared/adapters/aws/cloudwatch-log-events.ts');
  const aws = awsSettings(io);
  const logs = CloudWatchLogEvents.for(aws);
  const fetchSince = async (startTime: number) => {
    try {
      return await logs.since(logGroupName, startTime);
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot read log group ${logGroupName}`, err, aws));
    }
  };
  const first = await fetchSince(Date.now() - sinceMs);
  for (const e of first.slice(-lines)) io.out(render(e.message, json, agentId));
  if (!follow) return;
  const seen = new Set(first.map((e) => e.id));
  let from = first.at(-1)?.ts ?? Date.now();
  let stop = false;
  void io.interrupted().then(() => (stop = true));
  while (!stop) {
    await sleep(2_000);
    for (const e of await fetchSince(from)) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      from = Math.max(from, e.ts);
      io.out(render(e.message, json, agentId));
    }
  }
}

export const logsCommand: Command = {
  async run(args, io) {
    const p = parse(
      args,
      {
        ...commonOptions,
        agent: { type: 'string' },
        follow: { type: 'boolean', short: 'f', default: false },
        lines: { type: 'string', default: '50' },
        since: { type: 'string', default: '1h' },
        json: { type: 'boolean', default: false },
      },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const lines = Number(str(p.values.lines));
    if (!Number.isInteger(lines) || lines < 0) throw usageError(`--lines must be a whole number, got "${str(p.values.lines)}"`, HELP);
    const config = loadFleetConfig(str(p.values.config)!, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    const view: LogsView = { agentId, lines, follow: p.values.follow === true, json: p.values.json === true };
    // Which fleet's log this is goes to standard error, so standard output stays the log alone.
    if (p.values.aws) {
      const group = agentLogGroupName(config.fleet, agentId);
      const since = durationMs(str(p.values.since)!, HELP);
      const { awsWhere } = await import('./aws-where.ts');
      io.err(`fleet "${config.fleet}" ${await awsWhere(config.fleet, awsSettings(io))}: ${agentId}'s log group ${group}, the last ${str(p.values.since)}`);
      await awsLogs(group, since, view, io);
    } else {
      const path = runtimeLogPath(resolve(io.cwd, str(p.values.state)!, 'logs'), agentId);
      io.err(`fleet "${config.fleet}": ${agentId}'s log ${path}`);
      await localLogs(path, view, io);
    }
    return EXIT.ok;
  },
};
