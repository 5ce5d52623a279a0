// The sandbox for code the agent chooses, looked for as early as a start can: its probe waits
// on other processes (bubblewrap, or setpriv and a shell as a tool uid), so main.ts starts it
// right after reading the environment and loads the rest of the runtime meanwhile. Exec is
// still offered only once the answer is in (kinds/native.ts awaits it before any tool exists).
import { mkdirSync } from 'node:fs';
import type { RuntimeEnv } from '../env.ts';
import { chooseSandbox, type SandboxChoice } from '../../../shared/adapters/sandbox/choose-sandbox.ts';
import { needsSandbox } from '../../../shared/tools/sandbox-needs.ts';

/** Starts looking for the sandbox when the agent needs one (needsSandbox); resolves to undefined when it does not. */
export function chooseSandboxAtStart(env: RuntimeEnv): Promise<SandboxChoice | undefined> {
  if (!needsSandbox(env.config.agent)) return Promise.resolve(undefined);
  // The probe runs inside the workspace (seeding, later, would make it anyway).
  mkdirSync(env.workspace, { recursive: true });
  return chooseSandbox(env.sandbox, env.workspace);
}
