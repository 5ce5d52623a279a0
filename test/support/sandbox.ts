// The sandbox unit tests run exec in: bubblewrap, as the harness installed it
// (local/bubblewrap-install.ts). A machine without one fails the test saying why.
import { chooseSandbox } from '../../shared/adapters/sandbox/choose-sandbox.ts';
import type { Sandbox } from '../../shared/adapters/sandbox/sandbox-port.ts';

export async function bwrapSandbox(workspace: string, hide: string[] = []): Promise<Sandbox> {
  const choice = await chooseSandbox({ mode: 'bwrap', hide }, workspace);
  if (!choice.sandbox) throw new Error(`this test needs bubblewrap, which the test setup installs: ${choice.unavailable}`);
  return choice.sandbox;
}
