// Each runtime's log lines, kept as JSON lines under the state dir (logs/<agent>.log) so
// `clawfleet logs --agent <id>` can show and follow them; rotated at a size limit. A line
// that cannot be written (a full disk) is dropped whole and reported, never thrown: a log
// line is not worth the fleet, and a half-written line would spoil the file for readers.
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const MAX_LOG_BYTES = 10 * 1024 * 1024;

export const runtimeLogPath = (logDir: string, agentId: string) => join(logDir, `${agentId}.log`);

export interface RuntimeLogEvents {
  /** A line was dropped: what went wrong (ENOSPC when the disk is full). */
  failed(err: unknown): void;
  /** A line was written. */
  wrote(): void;
}

export class RuntimeLogFiles {
  private readonly sizes = new Map<string, number>();

  constructor(
    readonly dir: string,
    private readonly events: RuntimeLogEvents,
    private readonly maxBytes = MAX_LOG_BYTES,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  write(agentId: string, line: Record<string, unknown>): void {
    const path = runtimeLogPath(this.dir, agentId);
    const text = Buffer.from(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
    let size = this.sizes.get(agentId);
    if (size === undefined) {
      try {
        size = statSync(path).size;
      } catch {
        size = 0;
      }
    }
    if (size + text.length > this.maxBytes) {
      // One previous file is kept; older lines go.
      try {
        renameSync(path, `${path}.1`);
      } catch {
        // nothing to rotate yet
      }
      size = 0;
    }
    try {
      this.sizes.set(agentId, appendWhole(path, text));
      this.events.wrote();
    } catch (err) {
      this.sizes.delete(agentId);
      this.events.failed(err);
    }
  }
}

/** Appends `text` entirely or not at all (a short write is cut back off); returns the file's new size. */
function appendWhole(path: string, text: Buffer): number {
  const fd = openSync(path, 'a', 0o600);
  try {
    const before = fstatSync(fd).size;
    try {
      for (let done = 0; done < text.length; ) done += writeSync(fd, text, done);
    } catch (err) {
      try {
        ftruncateSync(fd, before);
      } catch {
        // the truncation needs no space; if even it fails, the reader skips one bad line
      }
      throw err;
    }
    return before + text.length;
  } finally {
    closeSync(fd);
  }
}
