// Local mode prints for a person at a terminal: one short line per event instead of JSON,
// and (in `clawfleet start`) one line per chat turn rather than the four a turn logs.

export function prettyLine(prefix: string, line: Record<string, unknown>): string {
  const { level, msg, time, component: _c, agentId, fleet: _f, ...rest } = line;
  const extra = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? shortIds(v) : JSON.stringify(v)}`);
  // A control-plane line about an agent says which; a runtime's own lines carry it as the prefix.
  if (typeof agentId === 'string' && agentId !== prefix) extra.unshift(`agent=${agentId}`);
  const mark = level === 'error' ? '✖ ' : level === 'warn' ? '! ' : '';
  return `${clockOf(time)} ${prefix.padEnd(8)} ${mark}${String(msg)}${extra.length ? `  ${extra.join(' ')}` : ''}`;
}

/**
 * Whether `clawfleet start` prints a line without --verbose. A turn logs four lines: the
 * control plane's `runtime status` started and ended, its `reply delivered`, and the
 * runtime's `turn answered` (with the model and ms). The last one alone tells the story, so
 * the other three are left to --verbose and the log files. A failed turn's status line, and
 * every warning and error, always show.
 */
export function shownByDefault(line: Record<string, unknown>): boolean {
  if (line.level === 'warn' || line.level === 'error' || line.level === 'fatal') return true;
  if (line.msg === 'runtime status') return line.turn !== 'started' && line.turn !== 'ended';
  return line.msg !== 'reply delivered';
}

/** Ids carry a 36-character UUID; its first 8 characters tell turns apart and still grep the full id in the JSON logs. */
function shortIds(text: string): string {
  return text.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '$1');
}

/** The line's own time (local clock, as the terminal shows), so `clawfleet logs` shows when it happened, not when it was read. */
function clockOf(time: unknown): string {
  const at = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  return (Number.isNaN(at.getTime()) ? new Date() : at).toTimeString().slice(0, 8);
}
