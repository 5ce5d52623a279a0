// Local mode on a full disk: every write to the state directory (SQLite, runtime logs)
// may fail until space returns. Each failure is reported here; the first is logged, the
// rest only counted, and a write that works after a quiet spell logs the recovery — so a
// full disk is one warning and one all-clear, not a line per request, log line and tick.
import { isStorageFull } from '../shared/storage-full.ts';
import { errorFields, type Logger } from '../shared/log.ts';
import type { Clock } from '../shared/ports.ts';

/**
 * A full disk is over when a write works this long after the last failure. Some writes
 * fit in space a file already has (SQLite reuses its WAL) while others fail, so one that
 * works right after a failure proves nothing, and declaring recovery then would warn again.
 */
export const STORAGE_QUIET_MS = 10_000;

export class StorageWatch {
  private fullSince: number | undefined;
  private lastFailureAt = 0;
  private failures = 0;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** True while writes are failing for want of space. */
  get full(): boolean {
    return this.fullSince !== undefined;
  }

  /**
   * Reports a failed write. True when it failed because the disk is full (then it is
   * handled here: the caller must not log it again); false for any other error, which
   * stays the caller's.
   */
  failed(err: unknown, where: string): boolean {
    if (!isStorageFull(err)) return false;
    this.failures++;
    this.lastFailureAt = this.clock.now();
    if (this.fullSince === undefined) {
      this.fullSince = this.lastFailureAt;
      this.log.warn(
        'the state directory is full: requests that need it are refused (503) and runtime log lines dropped until space returns; the fleet keeps running',
        {
          where,
          ...errorFields(err),
        },
      );
    }
    return true;
  }

  /** Reports a write that worked: after a full spell, says once that it is over. */
  wrote(): void {
    if (this.fullSince === undefined || this.clock.now() - this.lastFailureAt < STORAGE_QUIET_MS) return;
    this.log.info('the state directory is writable again', { fullForMs: this.lastFailureAt - this.fullSince, failedWrites: this.failures });
    this.fullSince = undefined;
    this.failures = 0;
  }
}
