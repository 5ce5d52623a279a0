// Collects what a test wrote where someone could read it (log lines of this process and
// of child processes, HTTP response bodies, messages sent to users) and finds any secret
// value the test created in it. Hits name the source and a masked secret, never the value.

export interface SecretHit {
  source: string;
  /** The secret, masked: its first 4 characters and its length. */
  secret: string;
  /** Where in the source it was found (a line number for line-based sources). */
  at: number;
}

export class SecretScan {
  private readonly secrets = new Set<string>();
  private readonly sources: Array<{ name: string; text: () => string }> = [];
  private readonly texts: Array<{ name: string; text: string }> = [];

  /** Values to look for; anything shorter than 8 characters is too common to mean anything. */
  addSecrets(...values: string[]): void {
    for (const v of values) if (v.length >= 8) this.secrets.add(v);
  }

  /** A source read at scan time (a runtime's output, a fake server's records). */
  addSource(name: string, text: () => string): void {
    this.sources.push({ name, text });
  }

  /** A piece of text recorded now (an HTTP response body). */
  record(name: string, text: string): void {
    this.texts.push({ name, text });
  }

  /**
   * Tees everything this process writes to stdout (shared/log.ts writes there) into the
   * scan, still passing it through. Returns the function that stops the capture.
   */
  captureStdout(name = 'this process stdout'): () => void {
    const chunks: string[] = [];
    const original = process.stdout.write;
    const tee = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    };
    process.stdout.write = tee as typeof process.stdout.write;
    this.addSource(name, () => chunks.join(''));
    return () => {
      if (process.stdout.write === (tee as typeof process.stdout.write)) process.stdout.write = original;
    };
  }

  /** The text of a source or recording by name, as it stands now (e.g. to read captured log lines). */
  read(name: string): string {
    return this.all()
      .filter((s) => s.name === name)
      .map((s) => s.text)
      .join('\n');
  }

  /** What was scanned: sources, lines and bytes (for the figures in docs/reliability.md). */
  stats(): { sources: number; lines: number; bytes: number; secrets: number } {
    const all = this.all();
    return {
      sources: all.length,
      lines: all.reduce((n, s) => n + s.text.split('\n').length, 0),
      bytes: all.reduce((n, s) => n + Buffer.byteLength(s.text), 0),
      secrets: this.secrets.size,
    };
  }

  hits(): SecretHit[] {
    const hits: SecretHit[] = [];
    for (const { name, text } of this.all()) {
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        for (const secret of this.secrets) {
          if (line.includes(secret)) hits.push({ source: name, secret: `${secret.slice(0, 4)}…(${secret.length} chars)`, at: i + 1 });
        }
      });
    }
    return hits;
  }

  private all(): Array<{ name: string; text: string }> {
    return [...this.texts, ...this.sources.map((s) => ({ name: s.name, text: s.text() }))];
  }
}
