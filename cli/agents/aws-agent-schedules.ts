// The schedules an agent made itself (`agent-<id>-*` in the fleet's group `clawfleet-<fleet>`),
// for `clawfleet agents remove|prune --aws`. A name does not say whose it is for certain
// (`agent-fran-` also begins fran-2's `agent-fran-2-report`): each schedule's own trigger,
// the input it passes to cron-dispatch, names its agent.
import { DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { scheduleGroupName } from '../../shared/config/names.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT } from '../command.ts';
import { StepFailed } from '../steps.ts';

export class AgentSchedules {
  constructor(
    private readonly scheduler: SchedulerClient,
    private readonly fleet: string,
  ) {}

  /** Names in the fleet's group that start with `prefix`; none when the group is gone. */
  async names(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let NextToken: string | undefined;
    do {
      let page;
      try {
        page = await this.scheduler.send(new ListSchedulesCommand({ GroupName: scheduleGroupName(this.fleet), NamePrefix: prefix, NextToken }));
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return [];
        throw new CliError(EXIT.failed, awsErrorText(`cannot list the schedules of ${scheduleGroupName(this.fleet)}`, err));
      }
      // Filtered here as well: an emulator may treat NamePrefix loosely.
      names.push(...(page.Schedules ?? []).map((s) => s.Name ?? '').filter((n) => n.startsWith(prefix)));
      NextToken = page.NextToken;
    } while (NextToken);
    return names;
  }

  /** Whose a schedule is, by the trigger it passes to cron-dispatch. */
  async agentOf(name: string): Promise<string | undefined> {
    try {
      const s = await this.scheduler.send(new GetScheduleCommand({ GroupName: scheduleGroupName(this.fleet), Name: name }));
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

  async delete(names: string[]): Promise<void> {
    for (const name of names) {
      try {
        await this.scheduler.send(new DeleteScheduleCommand({ GroupName: scheduleGroupName(this.fleet), Name: name }));
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw new StepFailed(awsErrorText(`cannot delete schedule ${name}`, err), 'run this again');
      }
    }
  }
}
