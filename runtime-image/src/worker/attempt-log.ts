// How many times work on an inbound message started and died with its runtime. A finished
// turn clears its count, a turn stopped by a drain takes its attempt back, so what remains
// counts only attempts that were cut off by a crash. It is what tells a poison message (it
// crashes the runtime each time it runs) from a bystander (in flight when someone else's
// turn crashed it): the queue's receive count cannot, as it counts every hand-out. Kept in
// the workspace (on EFS on AWS), so it outlives the task a crash takes down. The agent's own
// exec can write there: at worst it sets aside or retries its own messages, and the queue's
// receive count still bounds every message.
import { join } from 'node:path';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { sha256Hex } from '../../../shared/lazy-crypto.ts';

const DIR = join('.clawfleet', 'attempts');

export interface AttemptLog {
  /** Attempts recorded for this inbound and not taken back. */
  count(inboundId: string): Promise<number>;
  /** Notes that an attempt starts; returns the count including it. */
  start(inboundId: string): Promise<number>;
  /** The attempt ended without a crash (a drain stopped it): it does not count. */
  takeBack(inboundId: string): Promise<void>;
  /** The turn is done: its record goes. */
  clear(inboundId: string): Promise<void>;
}

export class WorkspaceAttemptLog implements AttemptLog {
  private readonly ws: WorkspaceDir;

  constructor(workspace: string) {
    this.ws = new WorkspaceDir(workspace);
  }

  private relative(inboundId: string): string {
    return join(DIR, sha256Hex(inboundId).slice(0, 40));
  }

  async count(inboundId: string): Promise<number> {
    try {
      const { text } = await this.ws.readText(this.relative(inboundId), { maxBytes: 64 });
      const n = Number(text.trim());
      return Number.isInteger(n) && n > 0 ? n : 0;
    } catch {
      // Absent is the common case; anything planted there (a FIFO, a folder) counts as nothing.
      return 0;
    }
  }

  async start(inboundId: string): Promise<number> {
    const n = (await this.count(inboundId)) + 1;
    await this.write(inboundId, n);
    return n;
  }

  async takeBack(inboundId: string): Promise<void> {
    const n = await this.count(inboundId);
    if (n <= 1) await this.clear(inboundId);
    else await this.write(inboundId, n - 1);
  }

  async clear(inboundId: string): Promise<void> {
    this.ws.remove(this.relative(inboundId), { recursive: true });
  }

  /**
   * Written to a fresh temp file and renamed over, beneath the workspace: never through a link
   * the agent's code planted at the name or in place of a folder.
   */
  private async write(inboundId: string, n: number): Promise<void> {
    this.ws.writeAtomic(this.relative(inboundId), `${n}\n`);
  }
}
