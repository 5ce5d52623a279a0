// The schedules agents made themselves (`agent-<id>-*` in the fleet's group `clawfleet-<fleet>`),
// for `clawfleet agents remove|prune --aws`. A name does not say whose it is for certain
// (`agent-fran-` also begins fran-2's `agent-fran-2-report`): each schedule's own trigger, the
// input it passes to cron-dispatch, names its agent. Listed and deleted as the cron scheduler
// does; only the reading of a trigger is this file's own.
import { GetScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { scheduleGroupName } from '../../config/names.ts';
import type { RemovalSchedules } from '../../deploy/agent-removal-ports.ts';
import { EventBridgeCronScheduler } from './eventbridge-cron-scheduler.ts';

const isGone = (err: unknown) => (err as Error).name === 'ResourceNotFoundException';

export class EventBridgeAgentSchedules implements RemovalSchedules {
  private readonly group: string;
  private readonly schedules: EventBridgeCronScheduler;

  constructor(
    private readonly client: SchedulerClient,
    fleet: string,
  ) {
    this.group = scheduleGroupName(fleet);
    // Listing and deleting only: the target is what put() would need.
    this.schedules = new EventBridgeCronScheduler(client, { group: this.group, functionArn: '', roleArn: '' });
  }

  /** Names in the fleet's group that start with `prefix`; none when the group is gone. */
  async names(prefix: string): Promise<string[]> {
    try {
      return await this.schedules.list(prefix);
    } catch (err) {
      if (isGone(err)) return [];
      throw err;
    }
  }

  /** Whose a schedule is, by the trigger it passes to cron-dispatch; undefined when it names none or cannot be read. */
  async agentOf(name: string): Promise<string | undefined> {
    try {
      const s = await this.client.send(new GetScheduleCommand({ GroupName: this.group, Name: name }));
      const input = JSON.parse(s.Target?.Input ?? '{}') as { agentId?: unknown };
      return typeof input.agentId === 'string' ? input.agentId : undefined;
    } catch {
      return undefined;
    }
  }

  /** The agent's own jobs (not the config's: those are in its stack). */
  async ownedBy(agentId: string): Promise<string[]> {
    const mine: string[] = [];
    for (const name of await this.names(`agent-${agentId}-`)) if ((await this.agentOf(name)) === agentId) mine.push(name);
    return mine;
  }

  /** Deletes the schedule; false when it was gone already. */
  delete(name: string): Promise<boolean> {
    return this.schedules.delete(name);
  }
}
