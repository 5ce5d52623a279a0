// The per-agent lifecycle both runtime launchers share (supervisor.ts: child processes, in
// bubblewrap boxes; container-supervisor.ts: containers of the runtime image): each agent's
// token, one operator action at a time per agent (restart, upgrade, hibernate, wake), a stop
// held so its exit is no crash, a crash restarted with backoff without touching the others,
// the runtime's log lines, and stopping them all. How a runtime starts, stops and ends is
// the launcher's: its `launch`, and the run that returns.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ClawfleetError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import type { AgentRuntimeSpec, LifecycleAction, RuntimeInfo, RuntimeLauncher, RuntimeState, SupervisorEvents } from './runtime-launcher.ts';

/** One start of an agent's runtime, as its launcher ran it. */
export interface RuntimeRun {
  /** What the fleet started: its stdout carries the runtime's JSON log lines, its stderr its errors; its pid is the agent's `topPid`. */
  readonly child: ChildProcess;
  /** The agent's runtime process (for a boxed one, found inside its box). */
  pid(): number | undefined;
  /** Asks the runtime to stop, lets it finish its turn, forces it after a grace; resolves once it is gone (its end said). */
  stop(): Promise<void>;
}

/** How a run says it ended, once: the runtime's exit as its launcher reads it. */
export type RunEnded = (code: number | null, signal: string | null) => void;

interface Managed<R> {
  spec: AgentRuntimeSpec;
  token: string;
  state: RuntimeState;
  run?: R;
  restarts: number;
  startedAt?: number;
  timer?: NodeJS.Timeout;
  /** Set while an operator action stops the runtime, so its exit is not a crash. */
  held: boolean;
  /** The action in progress, which the next one waits for. */
  acting: Promise<unknown>;
  lastExit?: RuntimeInfo['lastExit'];
}

export abstract class RuntimeLifecycle<R extends RuntimeRun> implements RuntimeLauncher {
  private readonly agents = new Map<string, Managed<R>>();
  private stopping = false;

  constructor(
    protected readonly log: Logger,
    protected readonly events: SupervisorEvents,
    /** What the launcher's log lines call a runtime ("runtime", "runtime container"). */
    private readonly noun: string,
  ) {}

  /**
   * Starts the agent's runtime with its token and spec; `ended` is called once when it is gone.
   * Throws, saying why, where it cannot start now (said like a crash, and tried again with
   * backoff); undefined where it can never start in this fleet (the launcher has said why).
   */
  protected abstract launch(spec: AgentRuntimeSpec, token: string, ended: RunEnded): R | undefined;

  /** The agent's current run, if its runtime is up. */
  protected run(agentId: string): R | undefined {
    return this.agents.get(agentId)?.run;
  }

  start(spec: AgentRuntimeSpec): void {
    const managed: Managed<R> = { spec, token: randomBytes(24).toString('hex'), state: 'starting', restarts: 0, held: false, acting: Promise.resolve() };
    this.agents.set(spec.agentId, managed);
    this.spawn(managed);
  }

  agentOfToken(token: string): string | undefined {
    const given = Buffer.from(token);
    for (const [id, m] of this.agents) {
      const mine = Buffer.from(m.token);
      if (mine.length === given.length && timingSafeEqual(mine, given)) return id;
    }
    return undefined;
  }

  state(agentId: string): RuntimeState {
    return this.agents.get(agentId)?.state ?? 'stopped';
  }

  info(agentId: string): RuntimeInfo {
    const m = this.agents.get(agentId);
    return { state: m?.state ?? 'stopped', pid: this.pid(agentId), restarts: m?.restarts ?? 0, startedAt: m?.startedAt, lastExit: m?.lastExit };
  }

  /** An agent's runtime process, for tests, the CLI and the dashboard (killing it is a crash). */
  pid(agentId: string): number | undefined {
    return this.run(agentId)?.pid();
  }

  topPid(agentId: string): number | undefined {
    return this.run(agentId)?.child.pid;
  }

  /**
   * An operator's lifecycle command. `restart` and `upgrade` replace the runtime (an upgrade
   * runs what the launcher runs now); `hibernate` stops it until `wake`. Messages keep
   * queueing meanwhile and are answered once it runs again.
   */
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState> {
    const m = this.agents.get(agentId);
    if (!m) return Promise.reject(new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in this fleet`));
    // One action at a time per agent: a wake that arrives while a hibernation is still
    // stopping the process runs after it, so it finds the process stopped and starts it.
    const next = m.acting.catch(() => undefined).then(() => this.actNow(m, action));
    m.acting = next;
    return next;
  }

  private async actNow(m: Managed<R>, action: LifecycleAction): Promise<RuntimeState> {
    const agentId = m.spec.agentId;
    if (this.stopping) throw new ClawfleetError('FLEET_STOPPING', 'the fleet is stopping');
    const starts = action === 'restart' || action === 'upgrade' || (action === 'wake' && (m.state === 'hibernating' || m.state === 'stopped'));
    // A restart is how an operator hands the runtime a new key: read its secrets again.
    if (starts && this.events.respec) m.spec = await this.events.respec(agentId);
    switch (action) {
      case 'hibernate':
        await this.halt(m);
        m.state = 'hibernating';
        break;
      case 'wake':
        if (starts) this.spawn(m);
        break;
      case 'restart':
      case 'upgrade':
        await this.halt(m);
        m.restarts = 0;
        this.spawn(m);
        break;
    }
    this.log.info(`runtime ${action}`, { agentId, state: m.state });
    return m.state;
  }

  private async halt(m: Managed<R>): Promise<void> {
    clearTimeout(m.timer);
    m.held = true;
    try {
      await this.kill(m);
    } finally {
      m.held = false;
    }
  }

  private async kill(m: Managed<R>): Promise<void> {
    const run = m.run;
    if (!run) return;
    this.events.onStopping?.(m.spec.agentId, true);
    await run.stop();
  }

  private spawn(m: Managed<R>): void {
    const { spec } = m;
    this.events.onStopping?.(spec.agentId, false);
    m.state = 'starting';
    m.startedAt = Date.now();
    let run: R | undefined;
    try {
      run = this.launch(spec, m.token, (code, signal) => this.exited(m, run, code, signal));
    } catch (err) {
      // Said like a crash (its line in the agent's log and status), and tried again with backoff.
      this.events.onLine(spec.agentId, { level: 'error', msg: 'runtime cannot start', error: (err as Error).message });
      this.exited(m, undefined, 1, null);
      return;
    }
    if (!run) {
      m.state = 'stopped';
      return;
    }
    m.run = run;
    this.readOutput(m, run);
  }

  private readOutput(m: Managed<R>, run: R): void {
    const { agentId } = m.spec;
    let buffer = '';
    run.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          line = { level: 'info', msg: text };
        }
        if (line.msg === 'ready' && m.run === run) m.state = 'running';
        this.events.onLine(agentId, line);
      }
    });
    run.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.events.onLine(agentId, { level: 'error', msg: chunk.trimEnd() }));
  }

  private exited(m: Managed<R>, run: R | undefined, code: number | null, signal: string | null): void {
    const { spec } = m;
    if (m.run === run) m.run = undefined;
    m.lastExit = { code, signal, at: Date.now() };
    const crashed = !this.stopping && !m.held;
    this.events.onExit(spec.agentId, code, signal, crashed);
    if (!crashed) {
      if (this.stopping) m.state = 'stopped';
      return;
    }
    // Back off 1 s, 2 s, 4 s … 30 s; a runtime that ran a minute starts over at 1 s.
    if (Date.now() - (m.startedAt ?? 0) > 60_000) m.restarts = 0;
    const delay = Math.min(30_000, 1000 * 2 ** m.restarts++);
    m.state = 'restarting';
    this.log.warn(`${this.noun} exited; restarting`, { agentId: spec.agentId, code, signal, inMs: delay });
    m.timer = setTimeout(() => this.spawn(m), delay);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.agents.values()].map(async (m) => {
        clearTimeout(m.timer);
        await this.kill(m);
        m.state = 'stopped';
      }),
    );
  }
}
