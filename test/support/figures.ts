// Figures a fault or fuzz test measured (kills, messages, duplicates…), written to
// test-artifacts/figures/<name>.json so docs/reliability.md can quote a run; passing
// tests' console output is silenced, so a file is the place for them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../test-artifacts/figures/', import.meta.url));

export function writeFigures(name: string, figures: Record<string, unknown>): void {
  mkdirSync(DIR, { recursive: true });
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
  writeFileSync(join(DIR, `${name}.json`), `${JSON.stringify({ name, at: new Date().toISOString(), machine, ...figures }, null, 2)}\n`);
}
