// The runtimes' warnings as `clawfleet start` prints them: each once for the fleet, naming
// the agents that gave it. Every runtime says its warnings as it starts (exec off for want of
// a sandbox is 260 characters) and again at each restart; four agents on one machine say the
// same thing four times. While the fleet starts, a warning is held until every runtime has
// said it is ready (or holdMs has passed), then printed once with the agents' names; later,
// a warning an agent gave already is not repeated, and another agent giving it adds a short line.

export interface RuntimeLine {
  level?: unknown;
  msg?: unknown;
  [field: string]: unknown;
}

export interface WarningsOnceOptions {
  /** The fleet's agents: once each has said it is ready, the start's warnings are all in. */
  agents: readonly string[];
  /** Prints one line: the warning (its msg naming the agents), as the runtime's own lines are printed. */
  print(prefix: string, line: RuntimeLine): void;
  /** The longest a start's warning waits for runtimes that never say they are ready. */
  holdMs: number;
  setTimer?(run: () => void, ms: number): { unref?(): void };
  clearTimer?(timer: unknown): void;
}

/** What identifies a warning: its words and fields, not its time or who said it. */
function keyOf(line: RuntimeLine): string {
  const { time: _t, level: _l, agentId: _a, component: _c, ...rest } = line;
  return JSON.stringify(rest);
}

export class WarningsOnce {
  private readonly ready = new Set<string>();
  /** Warnings printed, with the agents they were printed for. */
  private readonly said = new Map<string, Set<string>>();
  /** While the fleet starts: warnings held, with the agents that gave them, in arrival order. */
  private readonly held = new Map<string, { line: RuntimeLine; agents: string[] }>();
  private starting = true;
  private timer: unknown;

  constructor(private readonly opts: WarningsOnceOptions) {}

  /** Takes a runtime's line: true when it was held or dropped, false when the caller prints it as usual. */
  take(agentId: string, line: RuntimeLine): boolean {
    if (line.msg === 'ready') this.settled(agentId);
    if (line.level !== 'warn') return false;
    const key = keyOf(line);
    const said = this.said.get(key);
    if (said?.has(agentId)) return true; // a restart says it again
    if (said) {
      said.add(agentId);
      this.opts.print(agentId, {
        ...line,
        msg: `the same warning as ${[...said].filter((a) => a !== agentId).join(', ')} (${String(line.msg).slice(0, 40)}…)`,
      });
      return true;
    }
    if (!this.starting) {
      this.said.set(key, new Set([agentId]));
      return false;
    }
    const held = this.held.get(key);
    if (held) held.agents.includes(agentId) || held.agents.push(agentId);
    else this.held.set(key, { line, agents: [agentId] });
    this.timer ??= this.setTimer(() => this.flush(), this.opts.holdMs);
    return true;
  }

  /** Prints what is held, one line a warning naming its agents; from then on warnings print as they come. */
  flush(): void {
    if (this.timer !== undefined) (this.opts.clearTimer ?? clearTimeout)(this.timer as NodeJS.Timeout);
    this.timer = undefined;
    this.starting = false;
    const order = (a: string) => this.opts.agents.indexOf(a);
    for (const [key, { line, agents }] of this.held) {
      agents.sort((a, b) => order(a) - order(b)); // the config's order, whichever runtime spoke first
      this.said.set(key, new Set(agents));
      this.opts.print('fleet', { ...line, msg: `${agents.join(', ')}: ${String(line.msg)}` });
    }
    this.held.clear();
  }

  private settled(agentId: string): void {
    this.ready.add(agentId);
    if (this.starting && this.opts.agents.every((a) => this.ready.has(a))) this.flush();
  }

  private setTimer(run: () => void, ms: number): unknown {
    const timer = (this.opts.setTimer ?? setTimeout)(run, ms);
    timer.unref?.();
    return timer;
  }
}
