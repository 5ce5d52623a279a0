// The OpenClaw side of bench/openclaw-compare.ts: an OpenClaw config holding the same
// agents as a clawfleet config (id, name, model; the clawfleet default agent as OpenClaw's
// system agent), their providers pointed at the bench's fake model server, and the
// gateway started in the foreground as a user runs it on one machine:
// `openclaw gateway run --port <n>`, with HOME, state and config in a directory of its own.
// No channel: clawfleet's example binds Telegram accounts, and there is no Telegram here
// (the clawfleet side runs without it too). No heartbeats: the example has none.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { ProcessSpec } from './openclaw-measure.ts';

const GATEWAY_TOKEN = 'openclaw-bench-gateway-token-0123456789';

/** `baseUrl` for each wire API, as the fake model server gives them. */
export type ModelBaseUrls = Record<string, string>;

export function openclawConfig(fleet: FleetConfig, agentIds: string[], port: number, dir: string, baseUrls: ModelBaseUrls): Record<string, unknown> {
  const defaultAgent = fleet.agents.list.find((a) => a.default && agentIds.includes(a.id))?.id ?? agentIds[0]!;
  const entries: Record<string, unknown> = {};
  const providers: Record<string, unknown> = {};
  for (const id of agentIds) {
    const agent = resolveAgent(fleet, id);
    const model = agent.model?.primary;
    if (!model) throw new Error(`agent "${id}" has no model in the clawfleet config`);
    entries[id] = { name: agent.name ?? id, model, workspace: join(dir, `workspace-${id}`) };
    const providerName = model.slice(0, model.indexOf('/'));
    const provider = fleet.models.providers[providerName];
    if (!provider) throw new Error(`agent "${id}" uses provider "${providerName}", which the clawfleet config does not define`);
    const baseUrl = baseUrls[provider.api];
    if (!baseUrl) throw new Error(`the fake model server does not speak ${provider.api} (provider "${providerName}")`);
    providers[providerName] = { baseUrl, api: provider.api, apiKey: `sk-openclaw-bench-${providerName}-not-a-real-key`, models: [] };
  }
  return {
    gateway: { mode: 'local', port, bind: 'loopback', auth: { mode: 'token', token: GATEWAY_TOKEN } },
    // The start-up update check and telemetry would only fail here (no network); off, so neither side waits on the network.
    update: { checkOnStart: false },
    logging: { file: join(dir, 'logs', 'openclaw.log') },
    agents: {
      ...(agentIds.length > 1 ? { ownership: 'explicit' } : {}),
      defaults: { heartbeat: { every: '0m' }, systemAgent: { agentId: defaultAgent } },
      entries,
    },
    models: { providers },
  };
}

/** Writes the config under `dir` and returns how to start the gateway on it. */
export function gatewaySpec(opts: {
  name: string;
  node: string;
  cli: string;
  fleet: FleetConfig;
  agentIds: string[];
  port: number;
  dir: string;
  /** Where OpenClaw keeps its Node compile cache and temporary files; kept between runs, as on a user's machine. */
  tmpDir: string;
  baseUrls: ModelBaseUrls;
}): ProcessSpec {
  const home = join(opts.dir, 'home');
  const configPath = join(opts.dir, 'openclaw.json');
  mkdirSync(home, { recursive: true });
  mkdirSync(opts.tmpDir, { recursive: true });
  writeFileSync(configPath, JSON.stringify(openclawConfig(opts.fleet, opts.agentIds, opts.port, opts.dir, opts.baseUrls), null, 2));
  return {
    name: opts.name,
    cmd: [opts.node, opts.cli, 'gateway', 'run', '--port', String(opts.port)],
    cwd: opts.dir,
    env: {
      PATH: `${dirname(opts.node)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      TMPDIR: opts.tmpDir,
      OPENCLAW_STATE_DIR: join(opts.dir, 'state'),
      OPENCLAW_CONFIG_PATH: configPath,
      NO_COLOR: '1',
    },
    // The gateway logs "[gateway] ready" once /readyz would answer 200 (its docs: ready announcements use the same decision).
    readiness: () => (line) => /\[gateway\] ready$/.test(line.trim()),
  };
}

/** The gateway's own readiness probe, asked once after its ready line. */
export async function assertGatewayReady(port: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  if (res.status !== 200) throw new Error(`the gateway logged ready but /readyz answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
}
