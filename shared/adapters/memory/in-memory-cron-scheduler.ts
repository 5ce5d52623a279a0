// An in-memory schedule group, for unit tests of cron requests.
import type { CronScheduler, Schedule } from '../../ports.ts';

export class InMemoryCronScheduler implements CronScheduler {
  readonly schedules = new Map<string, Schedule>();
  async put(s: Schedule) {
    this.schedules.set(s.name, s);
  }
  async delete(name: string) {
    return this.schedules.delete(name);
  }
  async list(prefix: string) {
    return [...this.schedules.keys()].filter((n) => n.startsWith(prefix));
  }
}
