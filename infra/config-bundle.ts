// The fleet config as the control-plane functions get it: the user's clawfleet.json,
// copied beside each bundled handler (Lambda's 4 KB environment cannot hold a fleet's
// config); the functions parse it with the same schema at start-up. The copy command
// names the file by its path, never its content, so the command stays stable.
//
// The asset hash of every control-plane function covers its source and only the parts of
// the config the control plane reads. An agent's model, runtime size, image, tools, MCP
// servers and secret names are read by that agent's runtime alone, so changing them
// redeploys that agent's stack and leaves the control plane's functions as they are
// (their bundled copy of those fields may then lag behind, and nothing there reads them).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { REPO_ROOT } from './app-options.ts';

/** What the control plane reads of the config; a change here redeploys its functions. */
function controlPlaneView(config: FleetConfig): unknown {
  const { agents, models: _models, ...rest } = config;
  return {
    ...rest,
    agents: agents.list.map((a) => {
      const r = resolveAgent(config, a.id);
      return {
        id: r.id,
        name: r.name,
        default: r.default,
        alwaysOn: r.runtime.alwaysOn,
        idleTimeoutMinutes: r.runtime.idleTimeoutMinutes,
        heartbeat: r.heartbeat,
      };
    }),
  };
}

// Everything a handler bundle is built from besides node_modules (pinned by the lock file).
const SOURCE_ROOTS = ['functions', 'shared', 'package-lock.json'];
let sourceFingerprint: string | undefined;

/** A hash of the handlers' sources, computed once per process (a few hundred small files). */
function handlerSourceFingerprint(): string {
  if (sourceFingerprint) return sourceFingerprint;
  const hash = createHash('sha256');
  const visit = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      hash.update(relative(REPO_ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const root of SOURCE_ROOTS) visit(join(REPO_ROOT, root));
  return (sourceFingerprint = hash.digest('hex'));
}

/** The custom asset hash of one control-plane function's bundle. */
export function functionAssetHash(config: FleetConfig, handler: string, buildSettings: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify({ handler, buildSettings, config: controlPlaneView(config), source: handlerSourceFingerprint() }))
    .digest('hex');
}
