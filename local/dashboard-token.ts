// The local dashboard's sign-in token when the secrets file sets no DASHBOARD_TOKEN: made
// once, kept in the state directory (mode 0600) and reused, so restarting the fleet does
// not sign the browser out. The admin API's token stays new at every start: only the CLI
// on this machine uses it, and it reads admin.json each time.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newAdminToken } from './admin-file.ts';

export const dashboardTokenPath = (stateDir: string) => join(stateDir, 'dashboard-token');

export function localDashboardToken(stateDir: string): string {
  const path = dashboardTokenPath(stateDir);
  let kept = '';
  try {
    // A token others on the machine could have read is no secret any more: replaced.
    if ((statSync(path).mode & 0o077) === 0) kept = readFileSync(path, 'utf8').trim();
  } catch {
    // first start
  }
  // A token cut short or edited into something guessable is replaced, not trusted.
  if (/^[0-9a-f]{64}$/.test(kept)) return kept;
  const token = newAdminToken();
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  // The mode above applies only when the file is created; an existing one keeps its own.
  chmodSync(path, 0o600);
  return token;
}
