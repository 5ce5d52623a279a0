// The JSON log lines a process writes (the runtime as a child process, or in a container), as
// they arrive, and a wait for a line that gives up at a timeout or when the process ends.

export class JsonLineLog {
  readonly lines: Record<string, unknown>[] = [];
  private text = '';
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  /**
   * `who` and `endedAs` name the process in a failed wait's error ("runtime" … "exited", "the
   * container" … "stopped"); `ended` settles when it is gone.
   */
  constructor(
    private readonly who: string,
    private readonly endedAs: string,
    private readonly ended: Promise<unknown>,
  ) {}

  /** Output read as log lines: each complete line parsed as JSON (a line that is not JSON kept as `{ msg }`). */
  take(chunk: string): void {
    this.text += chunk;
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      try {
        this.lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        this.lines.push({ msg: line });
      }
    }
    for (const w of this.waiters) w();
  }

  /** Output kept only for scanning and failure messages (stderr). */
  keep(chunk: string): void {
    this.text += chunk;
  }

  /** Everything the process wrote, as it came. */
  raw(): string {
    return this.text;
  }

  /** The first line `predicate` accepts, once it is there; rejects at `timeoutMs` or when the process ends without it, with the output's end. */
  waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.lines.find(predicate);
        if (!hit) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.who} did not log the awaited line within ${timeoutMs} ms; output:\n${this.text.slice(-4000)}`));
      }, timeoutMs);
      this.waiters.add(check);
      void this.ended.then(() => {
        if (!this.waiters.has(check)) return;
        check();
        if (!this.waiters.has(check)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        reject(new Error(`${this.who} ${this.endedAs} before logging the awaited line; output:\n${this.text.slice(-4000)}`));
      });
      check();
    });
  }
}
