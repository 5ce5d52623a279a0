// `clawfleet start` with four agents that all warn the same thing at start (a browser whose
// Chromium is missing): the warning is printed once, naming the four, and not again when one
// of them restarts.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('cf-start-warnings-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('prints a warning all four runtimes give once, naming them, and not again when one restarts', async () => {
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  // In a folder of its own that is not there: the fleet's folder (it holds the state) is one no runtime's box may show.
  config.agents.defaults.tools = { browser: { enabled: true, executablePath: join(dir, 'no-chromium', 'chrome') } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  const io = captureIO({ cwd: dir });
  const started = runCli(['start', '--port', '0', '--state', 'state', '--secrets', 'none.json'], io);
  try {
    // Whether bubblewrap works here or not, the four say the same thing: their browser is off.
    const grouped = /^\d\d:\d\d:\d\d fleet {4}! jerry, fran, grif, ray: browser is off: /m;
    await expect.poll(() => io.outText(), { timeout: 180_000, interval: 200 }).toMatch(grouped);
    const restart = captureIO({ cwd: dir });
    // It waits until fran's new runtime says it is ready: its warning came before that.
    expect(await runCli(['runtime', 'restart', '--agent', 'fran', '--state', 'state'], restart), restart.errText()).toBe(0);
    expect(io.outText().match(/browser is off/g)).toHaveLength(1);
  } finally {
    io.interrupt();
    expect(await started).toBe(0);
  }
}, 300_000);
