// `npm start`'s fleet as the tests start it: in-process, on a temp directory that holds
// clawfleet.json and secrets.json (written here as an operator would), and handed back only
// once the named agents' runtimes run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSecretName } from '../../shared/config/names.ts';
import { startLocalFleet, type LocalFleet, type LocalFleetOptions } from '../../local/fleet.ts';
import { memoryLogger } from '../../shared/log.ts';

export interface StartFleetOptions extends Partial<LocalFleetOptions> {
  /** Holds clawfleet.json and secrets.json; the state goes to <dir>/state unless stateDir says otherwise. */
  dir: string;
  /** Agents whose runtimes must be running before the fleet is returned; 'all' for every agent in the config. */
  running?: readonly string[] | 'all';
  /** How long the runtimes may take to start (default 30 s). */
  timeoutMs?: number;
}

/** Writes a fleet's files as its operator keeps them: `config` as <dir>/clawfleet.json, and `secrets` (owner-only) at `secretsPath`. */
export function writeFleetFiles(dir: string, config: unknown, secrets: Record<string, Record<string, string>>, secretsPath = join(dir, 'secrets.json')): void {
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(secretsPath, JSON.stringify(secrets), { mode: 0o600 });
}

/** Each agent's model key as its own secret: OPENAI_API_KEY in the agent's secret of `fleet`. */
export function agentKeySecrets(fleet: string, keys: Record<string, string>): Record<string, Record<string, string>> {
  return Object.fromEntries(Object.entries(keys).map(([agentId, key]) => [agentSecretName(fleet, agentId), { OPENAI_API_KEY: key }]));
}

/** A fleet on <dir>'s clawfleet.json and secrets.json, its state in <dir>/state, on port 0, logging to memory. */
export function fleetOptionsIn(dir: string): Pick<LocalFleetOptions, 'configPath' | 'secretsPath' | 'stateDir' | 'port' | 'log'> {
  return { configPath: join(dir, 'clawfleet.json'), secretsPath: join(dir, 'secrets.json'), stateDir: join(dir, 'state'), port: 0, log: memoryLogger() };
}

/** How many of an agent's last runtime lines a timeout error shows. */
const LINES_SHOWN = 5;

/**
 * Starts the fleet (port 0, a memory logger unless given) and waits for `running`. On a timeout
 * it stops the fleet (the caller never got it to stop) and names the agent, its state and its last lines;
 * an agent the fleet does not have is refused at once.
 */
export async function startFleet(opts: StartFleetOptions): Promise<LocalFleet> {
  const { dir, running = [], timeoutMs = 30_000, ...given } = opts;
  const recent = new Map<string, Record<string, unknown>[]>();
  const fleet = await startLocalFleet({
    ...fleetOptionsIn(dir),
    ...given,
    onRuntimeLine: (agentId, line) => {
      const lines = recent.get(agentId) ?? [];
      lines.push(line);
      recent.set(agentId, lines.slice(-LINES_SHOWN));
      given.onRuntimeLine?.(agentId, line);
    },
  });
  const agents = fleet.cp.config.agents.list.map((a) => a.id);
  const ids = running === 'all' ? agents : running;
  try {
    // An agent the fleet does not have never runs: said at once, not after the timeout.
    const unknown = ids.filter((id) => !agents.includes(id));
    if (unknown.length)
      throw new Error(`${unknown.join(', ')}: not an agent of fleet "${fleet.cp.config.fleet}" (its agents: ${agents.join(', ')}), so never running`);
    await untilRunning(fleet, ids, timeoutMs, (id) => recent.get(id) ?? []);
  } catch (err) {
    // The timeout is the failure to report; a failed stop would only hide it.
    await fleet.stop().catch(() => undefined);
    throw err;
  }
  return fleet;
}

/** Waits until every one of `ids` is running in `fleet`'s supervisor, or throws naming the first that is not. */
export async function untilRunning(
  fleet: Pick<LocalFleet, 'supervisor'>,
  ids: readonly string[],
  timeoutMs = 30_000,
  lastLines: (id: string) => readonly Record<string, unknown>[] = () => [],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting = ids.find((id) => fleet.supervisor.state(id) !== 'running');
    if (waiting === undefined) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${waiting}'s runtime is ${fleet.supervisor.state(waiting)}, not running, after ${timeoutMs / 1000} s; its last lines: ${JSON.stringify(lastLines(waiting))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
