// `clawfleet status` as the terminal shows it: which fleet and where first, then the table,
// and each warning once, naming every agent that reported it.
import { describe, expect, it } from 'vitest';
import { formatStatus } from '../../cli/status.ts';
import type { AgentStatus } from '../../local/fleet-status.ts';

const EXEC_OFF = 'exec is off: no sandbox is available (bubblewrap (bwrap) is not installed)';
const agent = (id: string, warnings: string[]): AgentStatus => ({
  id,
  name: id,
  state: 'awake',
  model: 'openai/gpt-4.1-mini',
  queue: { visible: 0, inFlight: 0 },
  dlq: 0,
  outboxDlq: 0,
  lastHeartbeat: null,
  lastError: null,
  warnings,
});

describe('clawfleet status', () => {
  it('says a warning four agents share once, naming them, and each other warning with its own agents', () => {
    const text = formatStatus(
      {
        fleet: 'demo',
        where: 'at http://127.0.0.1:8787 (state in /home/me/.clawfleet)',
        agents: [
          agent('jerry', [EXEC_OFF]),
          agent('fran', [EXEC_OFF, 'browser is off: no Chromium at /x']),
          agent('grif', [EXEC_OFF]),
          agent('ray', [EXEC_OFF]),
        ],
      },
      Date.now(),
    );
    expect(text.split('\n')[0]).toBe('fleet "demo" at http://127.0.0.1:8787 (state in /home/me/.clawfleet)');
    expect(text).toContain(`Warnings:\n  ⚠ jerry, fran, grif, ray: ${EXEC_OFF}\n  ⚠ fran: browser is off: no Chromium at /x\n`);
    expect(text.match(/exec is off/g)).toHaveLength(1);
  });
});
