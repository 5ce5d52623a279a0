// Local mode's one-line log format: a line shows when it happened (not when it was read,
// which `clawfleet logs` does later) and which agent a control-plane line is about; and
// `clawfleet start` prints one line per chat turn, never hiding a warning or an error.
import { describe, expect, it } from 'vitest';
import { prettyLine, shownByDefault } from '../../local/pretty-log.ts';

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

describe('one line per chat turn in `clawfleet start`', () => {
  const time = '2026-11-29T09:08:07.000Z';
  const inbound = 'local.fran.03a33587-2fb0-4c4b-9d7b-637ad055d9da';
  // The four lines one chat turn logs, as `npm start --verbose` prints them (ids, fields and order as observed).
  const turn: Array<[string, Record<string, unknown>]> = [
    [
      'control',
      {
        level: 'info',
        time,
        msg: 'runtime status',
        component: 'local',
        agentId: 'fran',
        envelopeId: `${inbound}.status.started`,
        turn: 'started',
        inboundId: inbound,
      },
    ],
    [
      'control',
      {
        level: 'info',
        time,
        msg: 'reply delivered',
        component: 'local',
        agentId: 'fran',
        envelopeId: `${inbound}.reply.0`,
        sessionKey: 'agent:fran:main',
        parts: 1,
      },
    ],
    [
      'control',
      {
        level: 'info',
        time,
        msg: 'runtime status',
        component: 'local',
        agentId: 'fran',
        envelopeId: `${inbound}.status.ended`,
        turn: 'ended',
        inboundId: inbound,
      },
    ],
    [
      'fran',
      {
        level: 'info',
        time,
        msg: 'turn answered',
        agentId: 'fran',
        envelopeId: inbound,
        sessionKey: 'agent:fran:main',
        model: 'offline (no model key)',
        ms: 18,
        messages: 2,
      },
    ],
  ];

  it('keeps only the runtime’s “turn answered”, with the envelope id cut to its first 8 characters', () => {
    const shown = turn.filter(([, line]) => shownByDefault(line)).map(([prefix, line]) => prettyLine(prefix, line));
    const clock = new Date(time).toTimeString().slice(0, 8);
    expect(shown).toEqual([
      `${clock} fran     turn answered  envelopeId=local.fran.03a33587 sessionKey=agent:fran:main model=offline (no model key) ms=18 messages=2`,
    ]);
  });

  it('always shows a failed turn, warnings and errors', () => {
    expect(shownByDefault({ level: 'info', msg: 'runtime status', turn: 'failed', turnError: 'model timed out' })).toBe(true);
    expect(shownByDefault({ level: 'error', msg: 'turn failed; told the asker', error: 'model timed out' })).toBe(true);
    expect(shownByDefault({ level: 'warn', msg: 'runtime status', turn: 'started' })).toBe(true);
    expect(shownByDefault({ level: 'warn', msg: 'reply delivered' })).toBe(true);
  });

  it('shows everything else as before', () => {
    expect(shownByDefault({ level: 'info', msg: 'ready' })).toBe(true);
    expect(shownByDefault({ level: 'info', msg: 'tool called', tool: 'read', ms: 3 })).toBe(true);
  });
});
