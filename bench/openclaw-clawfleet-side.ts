// The clawfleet side of bench/openclaw-compare.ts, for the same agents as the gateway:
// - runtimes as the image runs them (the esbuild bundle, `node dist/main.mjs`), one process
//   per agent, against a stand-in for the local control plane's runtime channel that never
//   has work (as bench/runtime-start.ts does), so each stays idle after `ready`;
// - the whole one-machine fleet, `clawfleet start` (= `npm start`): control plane plus a
//   runtime process per agent, with a state directory and secrets file of its own.
// Model providers point at the bench's fake model server, with a key per agent, so each
// runtime loads its real provider module as it would with a real key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSecretName } from '../shared/config/names.ts';
import { resolveAgent, runtimeConfigFor } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { ModelBaseUrls } from './openclaw-gateway.ts';
import type { ProcessSpec } from './openclaw-measure.ts';

/** The fleet config with every provider's baseUrl on the fake model server. */
export function withFakeModel(fleet: FleetConfig, baseUrls: ModelBaseUrls): FleetConfig {
  const copy = structuredClone(fleet);
  for (const [name, provider] of Object.entries(copy.models.providers)) {
    const baseUrl = baseUrls[provider.api];
    if (!baseUrl) throw new Error(`the fake model server does not speak ${provider.api} (provider "${name}")`);
    provider.baseUrl = baseUrl;
  }
  return copy;
}

/** One agent's secret values: a made-up key under the name its primary model's provider reads. */
export function fakeKeys(fleet: FleetConfig, agentId: string): Record<string, string> {
  const primary = resolveAgent(fleet, agentId).model?.primary ?? '';
  const secret = fleet.models.providers[primary.slice(0, primary.indexOf('/'))]?.apiKeySecret;
  return secret ? { [secret]: `sk-clawfleet-bench-${agentId}-not-a-real-key` } : {};
}

const readyLine = (line: string) => line.includes('"msg":"ready"');

export function runtimeSpec(opts: {
  node: string;
  bundle: string;
  fleet: FleetConfig;
  agentId: string;
  controlUrl: string;
  workspace: string;
  home: string;
}): ProcessSpec {
  mkdirSync(opts.workspace, { recursive: true });
  return {
    name: `clawfleet runtime ${opts.agentId}`,
    cmd: [opts.node, opts.bundle],
    cwd: opts.home,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: opts.home,
      CLAWFLEET_AGENT_ID: opts.agentId,
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(opts.fleet, opts.agentId)),
      CLAWFLEET_CONTROL_URL: opts.controlUrl,
      CLAWFLEET_SECRETS_FD: '3',
      CLAWFLEET_WORKSPACE: opts.workspace,
    },
    pipedInputs: JSON.stringify({ token: `bench-runtime-token-${opts.agentId}-0123456789`, secrets: fakeKeys(opts.fleet, opts.agentId) }),
    readiness: () => readyLine,
  };
}

/** `clawfleet start` on this fleet; ready once every agent's runtime has logged `ready` (its lines come prefixed `[<agent>] `). */
export function localFleetSpec(opts: { node: string; repo: string; fleet: FleetConfig; dir: string }): ProcessSpec {
  mkdirSync(opts.dir, { recursive: true });
  const configPath = join(opts.dir, 'clawfleet.json');
  const secretsPath = join(opts.dir, 'clawfleet.secrets.json');
  writeFileSync(configPath, JSON.stringify(opts.fleet, null, 2));
  const secrets = Object.fromEntries(opts.fleet.agents.list.map((a) => [agentSecretName(opts.fleet.fleet, a.id), fakeKeys(opts.fleet, a.id)]));
  writeFileSync(secretsPath, JSON.stringify(secrets, null, 2));
  const agents = opts.fleet.agents.list.map((a) => a.id);
  return {
    name: 'clawfleet start',
    cmd: [
      opts.node,
      join(opts.repo, 'bin/clawfleet.js'),
      'start',
      '--config',
      configPath,
      '--secrets',
      secretsPath,
      '--state',
      join(opts.dir, 'state'),
      '--port',
      '0',
      '--verbose',
    ],
    cwd: opts.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.dir },
    readiness: () => {
      const ready = new Set<string>();
      return (line) => {
        const m = /^\[([^\]]+)\] (\{.*)$/.exec(line);
        if (m && agents.includes(m[1]!) && readyLine(m[2]!)) ready.add(m[1]!);
        return ready.size === agents.length;
      };
    },
  };
}
