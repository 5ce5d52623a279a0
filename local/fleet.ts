// `npm start`: the whole fleet on one machine — the control plane as one HTTP server,
// each agent's runtime as its own child process, Telegram by long polling.
import type { AddressInfo } from 'node:net';
import { agentSecretName } from '../shared/config/names.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../shared/config/resolve.ts';
import { createLogger, processRedactor, type Logger } from '../shared/log.ts';
import { systemClock } from '../shared/ports.ts';
import { LocalControlPlane } from './control-plane.ts';
import { FileSecretStore } from './secrets-file.ts';
import { createLocalServer } from './server.ts';
import { Supervisor } from './supervisor.ts';
import { startTelegramPoller } from './telegram-poller.ts';

export interface LocalFleetOptions {
  configPath: string;
  secretsPath: string;
  /** Where each agent's workspace lives (one folder per agent). */
  stateDir: string;
  port: number;
  log?: Logger;
  onRuntimeLine?: (agentId: string, line: Record<string, unknown>) => void;
}

export interface LocalFleet {
  url: string;
  cp: LocalControlPlane;
  supervisor: Supervisor;
  /** Agents that run the offline model, with the reason. */
  offline: Map<string, string>;
  pollingAccounts: string[];
  stop(): Promise<void>;
}

export async function startLocalFleet(opts: LocalFleetOptions): Promise<LocalFleet> {
  const log = opts.log ?? createLogger({ component: 'local' });
  const config = loadConfigFile(opts.configPath);
  const secrets = new FileSecretStore(opts.secretsPath);
  const cp = new LocalControlPlane(config, secrets, systemClock, log);

  let supervisor: Supervisor | undefined;
  const offline = new Map<string, string>();
  const server = createLocalServer({
    cp,
    log,
    agentOfToken: (token) => supervisor?.agentOfToken(token),
    agents: () =>
      config.agents.list.map((a) => ({
        id: a.id,
        name: a.name ?? a.id,
        model: offline.has(a.id) ? `offline (no key for ${resolveAgent(config, a.id).model?.primary})` : (resolveAgent(config, a.id).model?.primary ?? ''),
        state: supervisor?.state(a.id) ?? 'stopped',
      })),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  supervisor = new Supervisor(url, opts.stateDir, log, opts.onRuntimeLine ?? (() => {}), (agentId) => {
    // A dead runtime's messages need not wait out their visibility timeout.
    const released = cp.inbox(agentId).releaseInFlight();
    if (released) log.info('released messages of an exited runtime', { agentId, released });
  });
  for (const agent of config.agents.list) {
    const runtimeConfig = runtimeConfigFor(config, agent.id);
    const own = await secrets.get(agentSecretName(config.fleet, agent.id));
    processRedactor.add(...Object.values(own));
    const provider = runtimeConfig.providers[runtimeConfig.agent.model.primary.split('/')[0]!];
    const keyName = provider?.apiKeySecret;
    const reason = keyName && !own[keyName] ? `no ${keyName} in ${agentSecretName(config.fleet, agent.id)}` : undefined;
    if (reason) offline.set(agent.id, reason);
    supervisor.start({ agentId: agent.id, config: runtimeConfig, secrets: own, offlineReason: reason });
  }

  const pollers: { stop(): void }[] = [];
  const pollingAccounts: string[] = [];
  for (const accountId of Object.keys(config.channels.telegram?.accounts ?? {})) {
    const token = await cp.botToken(accountId);
    if (!token) continue;
    processRedactor.add(token);
    pollers.push(startTelegramPoller(cp, accountId, token, log));
    pollingAccounts.push(accountId);
  }

  return {
    url,
    cp,
    supervisor,
    offline,
    pollingAccounts,
    async stop() {
      pollers.forEach((p) => p.stop());
      await supervisor!.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
