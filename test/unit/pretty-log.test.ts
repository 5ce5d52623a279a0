// Local mode's one-line log format: a line shows when it happened (not when it was read,
// which `clawfleet logs` does later) and which agent a control-plane line is about.
import { describe, expect, it } from 'vitest';
import { prettyLine } from '../../local/pretty-log.ts';

describe('prettyLine', () => {
  const time = '2026-11-29T09:08:07.000Z';
  const clock = new Date(time).toTimeString().slice(0, 8);

  it('shows the line’s own time', () => {
    expect(prettyLine('fran', { level: 'info', time, msg: 'ready', agentId: 'fran' })).toBe(`${clock} fran     ready`);
  });

  it('names the agent a control-plane line is about, and marks warnings', () => {
    expect(prettyLine('control', { level: 'warn', time, msg: 'runtime restart', agentId: 'jerry', state: 'starting' })).toBe(
      `${clock} control  ! runtime restart  agent=jerry state=starting`,
    );
  });

  it('falls back to the current time when the line has none or a broken one', () => {
    expect(prettyLine('x', { msg: 'hi', time: 'not a time' })).toMatch(/^\d\d:\d\d:\d\d x {8}hi$/);
  });
});
