// Local mode prints for a person at a terminal: one short line per event instead of JSON.

export function prettyLine(prefix: string, line: Record<string, unknown>): string {
  const { level, msg, time: _time, component: _c, agentId: _a, fleet: _f, ...rest } = line;
  const extra = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const mark = level === 'error' ? '✖ ' : level === 'warn' ? '! ' : '';
  return `${new Date().toTimeString().slice(0, 8)} ${prefix.padEnd(8)} ${mark}${String(msg)}${extra.length ? `  ${extra.join(' ')}` : ''}`;
}
