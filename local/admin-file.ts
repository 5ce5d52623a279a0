// How the CLI finds a running local fleet: `npm start` writes the admin API's URL and a
// fresh random token to <state>/admin.json (mode 0600) and removes it on a clean stop.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const AdminFileSchema = z.object({ url: z.url(), token: z.string().min(32), pid: z.number().int(), startedAt: z.number() });
export type AdminFile = z.infer<typeof AdminFileSchema>;

export const adminFilePath = (stateDir: string) => join(stateDir, 'admin.json');

export function newAdminToken(): string {
  return randomBytes(32).toString('hex');
}

export function writeAdminFile(stateDir: string, file: AdminFile): void {
  // A new file renamed over the old: a crashed run's admin.json, whatever its mode, is
  // replaced rather than rewritten in place (a write keeps an existing file's mode).
  const path = adminFilePath(stateDir);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    rmSync(tmp, { force: true });
    writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export function removeAdminFile(stateDir: string, token: string): void {
  // Only our own: a second fleet on the same state dir may have replaced it.
  if (readAdminFile(stateDir)?.token === token) rmSync(adminFilePath(stateDir), { force: true });
}

/** The running fleet's admin endpoint, or undefined when none has written one. */
export function readAdminFile(stateDir: string): AdminFile | undefined {
  let text: string;
  try {
    text = readFileSync(adminFilePath(stateDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = AdminFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
