// A runtime killed with SIGKILL cannot stop its MCP servers' process groups. It records
// each group here (pgid and the leader's start time, so a reused pid is never mistaken
// for ours); the next runtime of the agent kills any group still alive. The record lives
// in the runtime's own state directory, never in the workspace: whatever the agent's code
// could write there, the next runtime would kill. In a container the whole PID namespace
// goes with the task anyway; this covers local mode.
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { killGroup } from './process-group-transport.ts';

interface Recorded {
  pgid: number;
  startTime: string;
}

/** When a process started (clock ticks since boot), to tell a pid from a later one that reuses it; undefined once gone. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the ")" that closes the command name.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export class OrphanReaper {
  private readonly live = new Map<number, Recorded>();

  private readonly dir: WorkspaceDir;
  private readonly name: string;

  constructor(private readonly file: string) {
    this.dir = new WorkspaceDir(dirname(file));
    this.name = basename(file);
  }

  /** Kills groups a previous runtime left behind; returns how many. */
  reap(): number {
    let recorded: Recorded[] = [];
    try {
      // Whatever is there (a FIFO, garbage) must not block or break the start.
      recorded = JSON.parse(this.dir.readTextSync(this.name, 1 << 20)) as Recorded[];
    } catch {
      return 0;
    }
    let killed = 0;
    for (const r of Array.isArray(recorded) ? recorded : []) {
      if (typeof r?.pgid === 'number' && startTimeOf(r.pgid) === r.startTime) {
        killGroup(r.pgid, 'SIGKILL');
        killed++;
      }
    }
    this.save();
    return killed;
  }

  add(pgid: number): void {
    const startTime = startTimeOf(pgid);
    if (startTime === undefined) return;
    this.live.set(pgid, { pgid, startTime });
    this.save();
  }

  remove(pgid: number): void {
    if (this.live.delete(pgid)) this.save();
  }

  private save(): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      this.dir.writeAtomic(this.name, JSON.stringify([...this.live.values()]));
    } catch {
      // Best effort: reaping is a safety net, not the way servers are stopped.
    }
  }
}
