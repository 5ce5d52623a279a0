// Where a managed OpenClaw gateway runs in local mode (`npm start`): inside the same
// bubblewrap sandbox native's exec gets (shared/adapters/sandbox/bwrap-sandbox.ts), since
// everything the gateway runs for the agent (OpenClaw's exec, read, write) runs as the gateway. It sees the
// system read-only, its Node 24 and OpenClaw install read-only, its own workspace and its own
// directory (config, home, logs) writable, and nothing else of the host: not the fleet's
// secrets file, the state directory (state.db, other agents' workspaces and runtime state),
// the repository or $HOME. The network is shared (the bridge reaches it on loopback; it
// reaches the model provider). Without a working bubblewrap the kind refuses to start. On AWS
// the container is the boundary and the gateway runs as a user of its own instead.
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute } from 'node:path';
import { ClawfleetError } from '../../../shared/errors.ts';
import { findBwrap, inside, probeBwrap, realOrUndefined, type BwrapSandbox } from '../../../shared/adapters/sandbox/bwrap-sandbox.ts';
import type { SandboxSettings } from '../../../shared/adapters/sandbox/choose-sandbox.ts';
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

/**
 * What the agent's stdio MCP servers run, shown read-only inside the gateway's sandbox:
 * OpenClaw starts them there, where only the system, the install and the workspace are, so
 * a server named by its path (`node /srv/mcp/node_modules/x/dist/index.js`) would not be
 * found. For each absolute path of a server's command and arguments that exists: the
 * node_modules folder it lies in (its dependencies are there too), else its own folder.
 * A folder that holds something the sandbox hides (the repository with the secrets file, the
 * state directory, $HOME) is refused, naming the server: showing it would show them.
 */
export function mcpServerReadOnly(
  servers: Record<string, { command: string; args?: string[] } | { url: string }> | undefined,
  hide: readonly string[],
): string[] {
  const hidden = hide.map((p) => realOrUndefined(p) ?? p);
  const shown = new Set<string>();
  for (const [name, server] of Object.entries(servers ?? {})) {
    if (!('command' in server)) continue;
    for (const arg of [server.command, ...(server.args ?? [])]) {
      if (!isAbsolute(arg)) continue;
      const real = realOrUndefined(arg) ?? arg;
      let isDir: boolean;
      try {
        isDir = statSync(real).isDirectory();
      } catch {
        continue;
      }
      let dir = real;
      while (basename(dir) !== 'node_modules' && dirname(dir) !== dir) dir = dirname(dir);
      if (basename(dir) !== 'node_modules') dir = isDir ? real : dirname(real);
      const secret = hidden.find((h) => inside(h, dir));
      if (secret)
        throw new ClawfleetError(
          'OPENCLAW_MCP_PATH_HIDDEN',
          `MCP server "${name}" runs ${arg}, whose folder ${dir} holds ${secret}, which the gateway's sandbox hides; install the server in a node_modules folder or a folder of its own (docs/runtime.md, "The local sandbox")`,
        );
      shown.add(dir);
    }
  }
  return [...shown];
}
