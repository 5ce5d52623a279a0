// Each runtime's log lines, kept as JSON lines under the state dir (logs/<agent>.log) so
// `clawfleet logs --agent <id>` can show and follow them; rotated at a size limit.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const MAX_LOG_BYTES = 10 * 1024 * 1024;

export const runtimeLogPath = (logDir: string, agentId: string) => join(logDir, `${agentId}.log`);

export class RuntimeLogFiles {
  private readonly sizes = new Map<string, number>();

  constructor(
    readonly dir: string,
    private readonly maxBytes = MAX_LOG_BYTES,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  write(agentId: string, line: Record<string, unknown>): void {
    const path = runtimeLogPath(this.dir, agentId);
    const text = `${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`;
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
    appendFileSync(path, text, { mode: 0o600 });
    this.sizes.set(agentId, size + Buffer.byteLength(text));
  }
}
