// The AgentCompute port over the runtime launcher: what ECS UpdateService is on AWS,
// starting and stopping one agent's child process (or container, with --containers). The lifecycle cores write the registry
// first and call this only for the write that won, exactly as with ECS.
import { ClawfleetError } from '../shared/errors.ts';
import type { AgentCompute } from '../shared/ports.ts';
import type { RuntimeLauncher } from './runtime-launcher.ts';

export class SupervisorCompute implements AgentCompute {
  /** The supervisor exists only once the server listens (runtimes need its URL), so it is looked up late. */
  constructor(private readonly supervisor: () => RuntimeLauncher | undefined) {}

  private get running(): RuntimeLauncher {
    const s = this.supervisor();
    if (!s) throw new ClawfleetError('FLEET_STARTING', 'the runtimes are not started yet');
    return s;
  }

  async setRunning(agentId: string, running: boolean): Promise<void> {
    await this.running.act(agentId, running ? 'wake' : 'hibernate');
  }

  async restart(agentId: string): Promise<void> {
    await this.running.act(agentId, 'restart');
  }
}
