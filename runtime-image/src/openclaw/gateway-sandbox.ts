// Where a managed OpenClaw gateway runs in local mode (`npm start`): inside the same
// bubblewrap sandbox native's exec gets (sandbox/bwrap-sandbox.ts), since everything the
// gateway runs for the agent (OpenClaw's exec, read, write) runs as the gateway. It sees the
// system read-only, its Node 24 and OpenClaw install read-only, its own workspace and its own
// directory (config, home, logs) writable, and nothing else of the host: not the fleet's
// secrets file, the state directory (state.db, other agents' workspaces and runtime state),
// the repository or $HOME. The network is shared (the bridge reaches it on loopback; it
// reaches the model provider). Without a working bubblewrap the kind refuses to start. On AWS
// the container is the boundary and the gateway runs as a user of its own instead.
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ClawfleetError } from '../../../shared/errors.ts';
import { findBwrap, probeBwrap, type BwrapSandbox } from '../sandbox/bwrap-sandbox.ts';
import type { SandboxSettings } from '../sandbox/choose-sandbox.ts';
import type { OpenclawInstallPaths } from './gateway-process.ts';

const INSTALL_HINT =
  'install bubblewrap (`apt-get install bubblewrap`, or `npx clawfleet sandbox install` for a copy of its own in .cache/); docs/runtime.md, "The local sandbox"';

/**
 * The bubblewrap sandbox for this agent's gateway, probed with exactly the mounts the gateway
 * will get; a clear error when there is none, as nothing else would keep OpenClaw's tools from
 * the other agents' secrets.
 */
export async function localGatewaySandbox(
  settings: Pick<SandboxSettings, 'bwrap' | 'hide'>,
  dirs: { workspace: string; gatewayDir: string },
): Promise<BwrapSandbox> {
  const bwrap = findBwrap(settings.bwrap);
  const why = bwrap
    ? await probeBwrap(bwrap, dirs.workspace, settings.hide, [dirs.gatewayDir]).then((p) => ('sandbox' in p ? p.sandbox : p.unavailable))
    : settings.bwrap
      ? `bubblewrap not found at ${settings.bwrap}`
      : 'bubblewrap (bwrap) is not installed';
  if (typeof why !== 'string') return why;
  throw new ClawfleetError(
    'OPENCLAW_SANDBOX_UNAVAILABLE',
    `runtime.kind "openclaw" runs its gateway locally only inside a sandbox, and none is available (${why}): ${INSTALL_HINT}`,
  );
}

/**
 * The install as the sandbox shows it: real paths (a link on the way, such as a worktree's
 * .cache, is not inside), and the read-only directories that hold it — Node 24's prefix and
 * the node_modules OpenClaw and its dependencies are in.
 */
export function sandboxedInstall(install: OpenclawInstallPaths): { install: OpenclawInstallPaths; readOnly: string[] } {
  const node = realpathSync(install.node);
  const cli = realpathSync(install.cli);
  let modules = dirname(cli);
  while (basename(modules) !== 'node_modules' && dirname(modules) !== modules) modules = dirname(modules);
  if (basename(modules) !== 'node_modules') modules = dirname(cli);
  return { install: { node, cli }, readOnly: [dirname(dirname(node)), modules] };
}
