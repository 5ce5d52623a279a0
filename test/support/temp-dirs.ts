// Temp dirs for tests. Each is made under the run's own TMPDIR (temp-root.ts) and removed when
// the test file that made it ends, passed or failed: temp-cleanup.ts, a setup file of every
// project, removes them after the file's own afterAll hooks (which stop what runs in them).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This file's dirs: a test file has its own module graph, so its own list. */
const made: string[] = [];

/** A fresh directory `<TMPDIR>/<prefix>XXXXXX`, removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory tempDir made in this test file (retrying while a process it stopped lets go). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
