// `clawfleet start` prints each runtime warning once for the fleet, naming the agents that
// gave it: not once per agent, and not again when an agent restarts.
import { describe, expect, it } from 'vitest';
import { WarningsOnce, type RuntimeLine } from '../../cli/start-warnings.ts';

const EXEC_OFF = 'exec is off: no sandbox is available (bubblewrap (bwrap) is not installed). Install bubblewrap …';
const AGENTS = ['jerry', 'fran', 'grif', 'ray'];

function setup() {
  const printed: { prefix: string; msg: string }[] = [];
  let fire: (() => void) | undefined;
  const warnings = new WarningsOnce({
    agents: AGENTS,
    print: (prefix, line) => printed.push({ prefix, msg: String(line.msg) }),
    holdMs: 10_000,
    setTimer: (run) => ((fire = run), {}),
    clearTimer: () => (fire = undefined),
  });
  const warn = (agentId: string, msg = EXEC_OFF): boolean => warnings.take(agentId, { level: 'warn', msg, time: Date.now(), agentId } as RuntimeLine);
  const ready = (agentId: string) => warnings.take(agentId, { level: 'info', msg: 'ready' });
  return { warnings, printed, warn, ready, fire: () => fire?.() };
}

describe('the warnings of a starting fleet', () => {
  it('are printed once, naming every agent that gave them (in the config’s order), when all runtimes are ready', () => {
    const { printed, warn, ready } = setup();
    for (const a of ['ray', 'jerry', 'grif', 'fran']) expect(warn(a)).toBe(true);
    expect(printed).toEqual([]);
    for (const a of AGENTS.slice(0, 3)) expect(ready(a)).toBe(false);
    expect(printed).toEqual([]);
    ready('ray');
    expect(printed).toEqual([{ prefix: 'fleet', msg: `jerry, fran, grif, ray: ${EXEC_OFF}` }]);
  });

  it('are not repeated when an agent restarts, and another warning still shows', () => {
    const { printed, warn, ready } = setup();
    for (const a of AGENTS) warn(a);
    for (const a of AGENTS) ready(a);
    expect(warn('fran')).toBe(true);
    expect(ready('fran')).toBe(false);
    expect(printed).toHaveLength(1);
    expect(warn('grif', 'mcp server "files" failed to start')).toBe(false); // printed by the caller, as any line
    expect(warn('grif', 'mcp server "files" failed to start')).toBe(true);
  });

  it('wait no longer than the hold for a runtime that never says it is ready', () => {
    const { printed, warn, ready, fire } = setup();
    warn('jerry');
    warn('fran');
    ready('jerry');
    fire();
    expect(printed).toEqual([{ prefix: 'fleet', msg: `jerry, fran: ${EXEC_OFF}` }]);
    // A late agent with the same warning gets one short line, not the whole warning again.
    warn('ray');
    expect(printed[1]).toEqual({ prefix: 'ray', msg: 'the same warning as jerry, fran (exec is off: no sandbox is available (bu…)' });
  });

  it('let every other line through', () => {
    const { warn, warnings } = setup();
    expect(warnings.take('fran', { level: 'info', msg: 'turn answered' })).toBe(false);
    expect(warnings.take('fran', { level: 'error', msg: 'turn failed' })).toBe(false);
    expect(warn('fran')).toBe(true);
  });
});
