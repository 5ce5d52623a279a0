// Local mode prints for a person at a terminal: one short line per event instead of JSON.

export function prettyLine(prefix: string, line: Record<string, unknown>): string {
  const { level, msg, time, component: _c, agentId, fleet: _f, ...rest } = line;
  const extra = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  // A control-plane line about an agent says which; a runtime's own lines carry it as the prefix.
  if (typeof agentId === 'string' && agentId !== prefix) extra.unshift(`agent=${agentId}`);
  const mark = level === 'error' ? '✖ ' : level === 'warn' ? '! ' : '';
  return `${clockOf(time)} ${prefix.padEnd(8)} ${mark}${String(msg)}${extra.length ? `  ${extra.join(' ')}` : ''}`;
}

/** The line's own time (local clock, as the terminal shows), so `clawfleet logs` shows when it happened, not when it was read. */
function clockOf(time: unknown): string {
  const at = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  return (Number.isNaN(at.getTime()) ? new Date() : at).toTimeString().slice(0, 8);
}
