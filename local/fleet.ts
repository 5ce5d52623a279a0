// `npm start`: the whole fleet on one machine — the control plane as one HTTP server,
// each agent's runtime as its own child process, Telegram by long polling, schedules on
// a timer, wake and hibernate through the registry as on AWS, and the durable state
// (queues, registry, schedules, chat) in <state>/state.db.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseSchedulerExpression } from '../shared/adapters/local/scheduler-expression.ts';
import { openStateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { agentSecretName, hooksSecretName } from '../shared/config/names.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { configSchedules } from '../shared/cron/config-schedules.ts';
import { scheduleInput } from '../shared/cron/trigger.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { createLogger, errorFields, processRedactor, type Logger } from '../shared/log.ts';
import { systemClock, type AgentState, type Clock, type Schedule } from '../shared/ports.ts';
import { newAdminToken, removeAdminFile, writeAdminFile } from './admin-file.ts';
import { LocalControlPlane } from './control-plane.ts';
import { startCronLoop } from './cron-loop.ts';
import type { FleetStatus } from './fleet-status.ts';
import { startHealthLoop } from './health-loop.ts';
import { RuntimeLogFiles } from './runtime-logs.ts';
import { FileSecretStore } from './secrets-file.ts';
import { localDashboardToken } from './dashboard-token.ts';
import { createLocalServer } from './server.ts';
import { Supervisor, type AgentRuntimeSpec, type LifecycleAction, type RuntimeState } from './supervisor.ts';
import { SupervisorCompute } from './supervisor-compute.ts';
import { startTelegramPoller } from './telegram-poller.ts';

export interface LocalFleetOptions {
  configPath: string;
  secretsPath: string;
  /** Everything the fleet keeps: state.db, workspaces/<agent>, logs/<agent>.log, admin.json. */
  stateDir: string;
  port: number;
  log?: Logger;
  onRuntimeLine?: (agentId: string, line: Record<string, unknown>) => void;
  /** What time it is for schedules (default: the system clock); tests move it ahead to fire a job without waiting for it. */
  scheduleClock?: Clock;
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

const ALL_STATES: (AgentState | 'absent')[] = ['absent', 'asleep', 'waking', 'awake', 'restarting', 'unhealthy'];
/** Schedules the config owns (its jobs and heartbeats), replaced at every start; agents' own (`agent-…`) are kept. */
const CONFIG_SCHEDULE_PREFIXES = ['config-', 'heartbeat-'];

export async function startLocalFleet(opts: LocalFleetOptions): Promise<LocalFleet> {
  const log = opts.log ?? createLogger({ component: 'local' });
  const config = loadConfigFile(opts.configPath);
  const secrets = new FileSecretStore(opts.secretsPath);
  // Conversations, transcripts and memory live here: made readable by its owner only (an
  // existing directory keeps the mode its owner gave it).
  mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
  const db = openStateDatabase(join(opts.stateDir, 'state.db'));
  let supervisor: Supervisor | undefined;
  const cp = new LocalControlPlane(config, db, secrets, systemClock, log, { compute: new SupervisorCompute(() => supervisor), scheduleClock: opts.scheduleClock });
  const logs = new RuntimeLogFiles(join(opts.stateDir, 'logs'));
  const adminToken = newAdminToken();

  // The config's cron jobs and heartbeats, as the CDK app makes them on AWS; before anything
  // starts, so a schedule this machine cannot evaluate stops the start with its name.
  try {
    const { removed } = cp.scheduler.replace(CONFIG_SCHEDULE_PREFIXES, configScheduleList(config));
    if (removed.length) log.info('schedules no longer in the config removed', { removed });
  } catch (err) {
    db.close();
    throw err;
  }

  // No runtime is alive yet: whatever was in flight when the last run stopped is due again.
  for (const agent of config.agents.list) {
    const released = cp.inbox(agent.id).releaseInFlight();
    const waiting = cp.inbox(agent.id).depth;
    if (waiting) log.info('messages waiting from the last run', { agentId: agent.id, waiting, released });
  }

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
        detail: info?.pid ? `pid ${info.pid}${info.restarts ? `, ${info.restarts} restart${info.restarts === 1 ? '' : 's'}` : ''}` : undefined,
      };
    }),
  });

  /**
   * An operator's command (CLI, dashboard): the registry says what the agent should be,
   * then the supervisor makes it so, as on AWS the registry write precedes the ECS call.
   */
  const act = async (agentId: string, action: LifecycleAction): Promise<RuntimeState> => {
    if (!config.agents.list.some((a) => a.id === agentId)) throw new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in this fleet`);
    const now = systemClock.now();
    if (action === 'hibernate') await cp.registry.transition(agentId, ALL_STATES, 'asleep', now);
    else if (action === 'wake') await cp.registry.transition(agentId, ['absent', 'asleep'], 'waking', now);
    else await cp.registry.transition(agentId, ALL_STATES, 'waking', now);
    return supervisor!.act(agentId, action);
  };

  let lastSeenWrite = new Map<string, number>();
  const server = createLocalServer({
    cp,
    log,
    adminToken,
    dashboardToken: localDashboardToken(opts.stateDir),
    agentOfToken: (token) => supervisor?.agentOfToken(token),
    agents: () => config.agents.list.map((a) => ({ id: a.id, name: a.name ?? a.id, model: modelOf(a.id), state: supervisor?.state(a.id) ?? 'stopped' })),
    status,
    act,
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
    onStopping: (agentId, stopping) => server.draining(agentId, stopping),
    onLine: (agentId, line) => {
      const safe = JSON.parse(processRedactor.redact(JSON.stringify(line))) as Record<string, unknown>;
      logs.write(agentId, safe);
      if (safe.level === 'error' && typeof safe.msg === 'string') {
        cp.status.error(agentId, typeof safe.error === 'string' ? `${safe.msg}: ${safe.error}` : safe.msg, systemClock.now());
      }
      opts.onRuntimeLine?.(agentId, safe);
    },
    onExit: (agentId, code, signal, crashed) => {
      // A dead runtime's messages need not wait out their visibility timeout: its polls are
      // ended first, so none takes a message after the release.
      server.runtimeGone(agentId);
      const released = cp.inbox(agentId).releaseInFlight();
      if (released) log.info('released messages of an exited runtime', { agentId, released });
      if (crashed) {
        cp.status.error(agentId, `runtime exited (${signal ?? `code ${code}`})`, systemClock.now());
        // The supervisor starts it again; its first heartbeat marks it awake.
        cp.registry.transition(agentId, ['awake', 'waking'], 'restarting', systemClock.now()).catch((err) => log.warn('registry not updated', { agentId, ...errorFields(err) }));
      }
      logs.write(agentId, { level: crashed ? 'warn' : 'info', msg: 'runtime process exited', code, signal });
    },
  });

  // Every agent runs from the start (a hibernated one too); its first heartbeat marks it awake.
  for (const agent of config.agents.list) {
    await cp.registry.transition(agent.id, ALL_STATES, 'waking', systemClock.now());
    supervisor.start(await specFor(agent.id));
  }
  const health = startHealthLoop(config, cp.lifecycle!);
  const cron = startCronLoop({ scheduler: cp.scheduler, dispatch: cp.cronDispatch, clock: opts.scheduleClock ?? systemClock, log });

  const pollers: { stop(): void }[] = [];
  const pollingAccounts: string[] = [];
  if (config.hooks) {
    const hooksToken = await cp.hooksToken().catch(() => undefined);
    if (hooksToken) processRedactor.add(hooksToken);
    else log.warn(`hooks are refused until ${config.hooks.tokenSecret} is set under "${hooksSecretName(config.fleet)}" in the secrets file`);
  }
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
      await cron.stop();
      await health.stop();
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

/** The config's schedules as the scheduler stores them; a schedule it cannot evaluate is named in the error. */
function configScheduleList(config: FleetConfig): Schedule[] {
  return configSchedules(config).map((s) => {
    try {
      parseSchedulerExpression(s.expression, s.timezone);
    } catch (err) {
      if (err instanceof ClawfleetError) throw new ClawfleetError(err.code, `schedule "${s.name}": ${err.message}`);
      throw err;
    }
    return { name: s.name, expression: s.expression, timezone: s.timezone, input: scheduleInput(s.trigger) };
  });
}
