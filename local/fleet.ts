// `npm start`: the whole fleet on one machine — the control plane as one HTTP server,
// each agent's runtime as its own child process, Telegram by long polling, and the
// durable state (queues, registry, chat) in <state>/state.db.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openStateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { agentSecretName } from '../shared/config/names.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../shared/config/resolve.ts';
import { createLogger, processRedactor, type Logger } from '../shared/log.ts';
import { systemClock } from '../shared/ports.ts';
import { newAdminToken, removeAdminFile, writeAdminFile } from './admin-file.ts';
import { LocalControlPlane } from './control-plane.ts';
import type { FleetStatus } from './fleet-status.ts';
import { RuntimeLogFiles } from './runtime-logs.ts';
import { FileSecretStore } from './secrets-file.ts';
import { createLocalServer } from './server.ts';
import { Supervisor, type AgentRuntimeSpec } from './supervisor.ts';
import { startTelegramPoller } from './telegram-poller.ts';

export interface LocalFleetOptions {
  configPath: string;
  secretsPath: string;
  /** Everything the fleet keeps: state.db, workspaces/<agent>, logs/<agent>.log, admin.json. */
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
  status(): FleetStatus;
  stop(): Promise<void>;
}

/** How often hibernating agents with waiting messages are woken, as the health Lambda does on AWS. */
const WAKE_CHECK_MS = 2_000;

export async function startLocalFleet(opts: LocalFleetOptions): Promise<LocalFleet> {
  const log = opts.log ?? createLogger({ component: 'local' });
  const config = loadConfigFile(opts.configPath);
  const secrets = new FileSecretStore(opts.secretsPath);
  mkdirSync(opts.stateDir, { recursive: true });
  const db = openStateDatabase(join(opts.stateDir, 'state.db'));
  const cp = new LocalControlPlane(config, db, secrets, systemClock, log);
  const logs = new RuntimeLogFiles(join(opts.stateDir, 'logs'));
  const adminToken = newAdminToken();

  // No runtime is alive yet: whatever was in flight when the last run stopped is due again.
  for (const agent of config.agents.list) {
    const released = cp.inbox(agent.id).releaseInFlight();
    const waiting = cp.inbox(agent.id).depth;
    if (waiting) log.info('messages waiting from the last run', { agentId: agent.id, waiting, released });
  }

  let supervisor: Supervisor | undefined;
  const offline = new Map<string, string>();
  const modelOf = (agentId: string) => {
    const primary = resolveAgent(config, agentId).model?.primary ?? '';
    return offline.has(agentId) ? `offline (no key for ${primary})` : primary;
  };
  const status = (): FleetStatus => ({
    fleet: config.fleet,
    where: `local (${opts.stateDir})`,
    agents: config.agents.list.map((a) => {
      const counts = cp.inbox(a.id).counts();
      const recorded = cp.status.get(a.id);
      const info = supervisor?.info(a.id);
      return {
        id: a.id,
        name: a.name ?? a.id,
        state: info?.state ?? 'stopped',
        model: modelOf(a.id),
        queue: { visible: counts.visible, inFlight: counts.inFlight },
        dlq: cp.inboxDlq(a.id).depth,
        outboxDlq: cp.dlq(a.id).depth,
        lastHeartbeat: recorded.lastHeartbeat ?? null,
        lastError: recorded.lastError ?? null,
        detail: info?.pid ? `pid ${info.pid}${info.restarts ? `, ${info.restarts} restarts` : ''}` : undefined,
      };
    }),
  });

  let lastSeenWrite = new Map<string, number>();
  const server = createLocalServer({
    cp,
    log,
    adminToken,
    agentOfToken: (token) => supervisor?.agentOfToken(token),
    agents: () => config.agents.list.map((a) => ({ id: a.id, name: a.name ?? a.id, model: modelOf(a.id), state: supervisor?.state(a.id) ?? 'stopped' })),
    status,
    act: (agentId, action) => supervisor!.act(agentId, action),
    runtimeSeen: (agentId) => {
      // A runtime polling its queue is alive; written at most every few seconds.
      const now = systemClock.now();
      if (now - (lastSeenWrite.get(agentId) ?? 0) < 5_000) return;
      lastSeenWrite.set(agentId, now);
      cp.status.heartbeat(agentId, now);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** What a runtime gets: its slice of the config and its own secrets, read from the file now. */
  const specFor = async (agentId: string): Promise<AgentRuntimeSpec> => {
    const runtimeConfig = runtimeConfigFor(config, agentId);
    const own = await new FileSecretStore(opts.secretsPath).get(agentSecretName(config.fleet, agentId));
    processRedactor.add(...Object.values(own));
    const provider = runtimeConfig.providers[runtimeConfig.agent.model.primary.split('/')[0]!];
    const keyName = provider?.apiKeySecret;
    const reason = keyName && !own[keyName] ? `no ${keyName} in ${agentSecretName(config.fleet, agentId)}` : undefined;
    if (reason) offline.set(agentId, reason);
    else offline.delete(agentId);
    return { agentId, config: runtimeConfig, secrets: own, offlineReason: reason };
  };

  supervisor = new Supervisor(url, join(opts.stateDir, 'workspaces'), log, {
    respec: specFor,
    onLine: (agentId, line) => {
      const safe = JSON.parse(processRedactor.redact(JSON.stringify(line))) as Record<string, unknown>;
      logs.write(agentId, safe);
      if (safe.level === 'error' && typeof safe.msg === 'string') {
        cp.status.error(agentId, typeof safe.error === 'string' ? `${safe.msg}: ${safe.error}` : safe.msg, systemClock.now());
      }
      opts.onRuntimeLine?.(agentId, safe);
    },
    onExit: (agentId, code, signal, crashed) => {
      // A dead runtime's messages need not wait out their visibility timeout.
      const released = cp.inbox(agentId).releaseInFlight();
      if (released) log.info('released messages of an exited runtime', { agentId, released });
      if (crashed) cp.status.error(agentId, `runtime exited (${signal ?? `code ${code}`})`, systemClock.now());
      logs.write(agentId, { level: crashed ? 'warn' : 'info', msg: 'runtime process exited', code, signal });
    },
  });
  for (const agent of config.agents.list) supervisor.start(await specFor(agent.id));

  const wakeTimer = setInterval(() => {
    for (const agent of config.agents.list) {
      if (supervisor!.state(agent.id) === 'hibernating' && cp.inbox(agent.id).counts().visible > 0) {
        log.info('waking a hibernating agent: messages are waiting', { agentId: agent.id });
        supervisor!.act(agent.id, 'wake').catch(() => {});
      }
    }
  }, WAKE_CHECK_MS);

  const pollers: { stop(): void }[] = [];
  const pollingAccounts: string[] = [];
  for (const accountId of Object.keys(config.channels.telegram?.accounts ?? {})) {
    const token = await cp.botToken(accountId);
    if (!token) continue;
    processRedactor.add(token);
    pollers.push(startTelegramPoller(cp, accountId, token, log));
    pollingAccounts.push(accountId);
  }

  writeAdminFile(opts.stateDir, { url, token: adminToken, pid: process.pid, startedAt: systemClock.now() });

  return {
    url,
    cp,
    supervisor,
    offline,
    pollingAccounts,
    status,
    async stop() {
      clearInterval(wakeTimer);
      pollers.forEach((p) => p.stop());
      await supervisor!.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      removeAdminFile(opts.stateDir, adminToken);
      lastSeenWrite = new Map();
      db.close();
    },
  };
}
