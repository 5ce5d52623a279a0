// The local dashboard token: made once and kept, readable by its owner only, and replaced
// when it is not what this code wrote or others could have read it.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dashboardTokenPath, localDashboardToken } from '../../local/dashboard-token.ts';
import { tempDir } from '../support/temp-dirs.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('localDashboardToken', () => {
  it('is made at the first start with mode 0600, and the same at the next', () => {
    const dir = tempDir('cf-token-');
    const first = localDashboardToken(dir);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(modeOf(dashboardTokenPath(dir))).toBe(0o600);
    expect(localDashboardToken(dir)).toBe(first);
  });

  it('replaces a token others could read, and leaves the file readable by its owner only', () => {
    const dir = tempDir('cf-token-');
    const first = localDashboardToken(dir);
    chmodSync(dashboardTokenPath(dir), 0o644);
    const second = localDashboardToken(dir);
    expect(second).not.toBe(first);
    expect(modeOf(dashboardTokenPath(dir))).toBe(0o600);
  });

  it('replaces a file that holds something else', () => {
    const dir = tempDir('cf-token-');
    writeFileSync(dashboardTokenPath(dir), 'password\n', { mode: 0o600 });
    const token = localDashboardToken(dir);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(dashboardTokenPath(dir), 'utf8').trim()).toBe(token);
  });
});
