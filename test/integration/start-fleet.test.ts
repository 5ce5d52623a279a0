// The tests' way to start `npm start`'s fleet (test/support/local-fleet.ts): it hands the
// fleet back only once the named runtimes run, and a timeout says which agent is stuck, in
// what state, with its last lines, and stops the fleet it started rather than leaking it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

let dir: string;
let fleet: LocalFleet | undefined;

beforeAll(() => {
  dir = tempDir('cf-start-fleet-');
  // No model key: the agent answers with the offline model, which is all a start needs.
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'startfleet',
      agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'solo', default: true }] },
      models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
    }),
  );
  writeFileSync(join(dir, 'secrets.json'), '{}');
});

afterAll(async () => {
  await fleet?.stop();
});

describe('startFleet', () => {
  it('on a timeout names the agent, its state and its last lines, and stops the fleet it started', async () => {
    await expect(startFleet({ dir, running: ['solo'], timeoutMs: 0 })).rejects.toThrow(
      /^solo's runtime is (starting|restarting), not running, after 0 s; its last lines: \[/,
    );
    // Stopped: the state directory's lock is free, so the next start on it succeeds.
    fleet = await startFleet({ dir, running: 'all' });
    await fleet.stop();
    fleet = undefined;
  });

  it('refuses at once to wait for an agent that is not in the fleet, naming it, and stops the fleet it started', async () => {
    // No timeout to run out: the answer cannot depend on how fast solo starts.
    await expect(startFleet({ dir, running: ['solo', 'nobody'], timeoutMs: 600_000 })).rejects.toThrow(
      'nobody: not an agent of fleet "startfleet" (its agents: solo), so never running',
    );
    fleet = await startFleet({ dir, running: 'all' });
    await fleet.stop();
    fleet = undefined;
  });

  it('hands the fleet back with every named runtime running, and passes the runtime lines on', async () => {
    const lines: { agentId: string; line: Record<string, unknown> }[] = [];
    fleet = await startFleet({ dir, running: 'all', onRuntimeLine: (agentId, line) => lines.push({ agentId, line }) });
    expect(fleet.supervisor.state('solo')).toBe('running');
    expect(lines.some((l) => l.agentId === 'solo' && l.line.msg === 'ready')).toBe(true);
  });
});
