// `npm start`: the whole fleet on one machine — the control plane as one HTTP server,
// each agent's runtime as its own child process, Telegram by long polling, schedules on
// a timer, wake and hibernate through the registry as on AWS, and the durable state
// (queues, registry, schedules, chat) in <state>/state.db. The state directory is held
// by one fleet at a time, private to its owner, and a full disk fails requests, not the fleet.
import { capReached, spendText } from '../shared/budget/budget.ts';
import { agentCaps, spendStatusText } from '../shared/control/budget-gate.ts';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseSchedulerExpression } from '../shared/adapters/local/scheduler-expression.ts';
import { openStateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { fleetSkillsDir } from '../shared/config/fleet-skills-dir.ts';
import { agentSecretName, hooksSecretName } from '../shared/config/names.ts';
import { loadConfigFile } from '../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { configSchedules } from '../shared/cron/config-schedules.ts';
import { scheduleInput } from '../shared/cron/trigger.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { isStorageFull } from '../shared/storage-full.ts';
import { createLogger, errorFields, processRedactor, type Logger } from '../shared/log.ts';
import { systemClock, type AgentState, type Clock, type Schedule } from '../shared/ports.ts';
import { newAdminToken, removeAdminFile, writeAdminFile } from './admin-file.ts';
import { FileMediaStore } from '../shared/adapters/fs/file-media-store.ts';
import { MEDIA_EXPIRY_DAYS } from '../shared/media/media-ref.ts';
import { LocalControlPlane } from './sqlite-control-plane.ts';
import { startCronLoop } from './cron-loop.ts';
import type { FleetStatus } from './fleet-status.ts';
import { startHealthLoop } from './health-loop.ts';
import { RuntimeLogFiles } from './runtime-logs.ts';
import { FileSecretStore } from './secrets-file.ts';
import { localDashboardToken } from './dashboard-token.ts';
import { createLocalServer } from './server.ts';
import { lockStateDir, STATE_LOCK_FILE } from './state-lock.ts';
import { holdStateUmask, tightenStateModes } from './state-modes.ts';
import { StorageWatch } from './storage-watch.ts';
import { localWorkspaceHolds } from './workspace-holds.ts';
import { measureWorkspace } from '../shared/adapters/fs/staged-transfer.ts';
import { FileWorkspaceSyncLog } from '../shared/adapters/local/file-workspace-sync-log.ts';
import { measuredWorkspace } from '../shared/dashboard/workspace-view.ts';
import { Supervisor } from './supervisor.ts';
import { giveKeyHint } from './model-key-hint.ts';
import type { AgentRuntimeSpec, LifecycleAction, RuntimeLauncher, RuntimeState } from './runtime-launcher.ts';
import { imageVariantFor, imageVariantProblem, type RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { containerEngineVersion } from './container-engine-check.ts';
import { ContainerSupervisor, removeLeftoverContainers } from './container-supervisor.ts';
import { runtimeImages } from './runtime-images.ts';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { SupervisorCompute } from './supervisor-compute.ts';
import { startTelegramPoller } from './telegram-poller.ts';
import { boxingHere, PROBE_ARGV, probeBox } from './box-check.ts';
import { LocalAlarms, localConditions, tellOperator, type AgentSnapshot } from './operator-alarms.ts';

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
  /** Where the pinned OpenClaw for runtime.kind "openclaw" is installed (default .cache/openclaw in the repository). */
  openclawRoot?: string;
  /** Host names besides 127.0.0.1, localhost and [::1] that requests may name (a proxy's or tunnel's); see shared/http/request-origin.ts. */
  allowedHosts?: readonly string[];
  /**
   * How the fleet gets the bubblewrap its runtimes' boxes (and OpenClaw gateways) are made with:
   * by default one on PATH or in .cache/, else Debian's pinned package installed into .cache/
   * (local/bubblewrap-install.ts). Tests make it fail.
   */
  bubblewrap?: () => Promise<string>;
  /**
   * Test-only, never from config or the CLI: runtimes resolve file-tool paths the naive way
   * (no beneath-the-workspace walk), so a test can show what the runtime's box holds alone.
   */
  uncheckedPathsForTests?: boolean;
  /** How the runtimes run: child processes, or containers of the runtime image (`--containers`). Default: the config's local.runtimes, else processes. */
  runtimes?: 'processes' | 'containers';
  /** With containers: the docker client (default `docker` on PATH). */
  docker?: string;
  /** With containers: images of runtime-image/Dockerfile's stages built already (tests); the others are built at start. */
  runtimeImages?: Partial<Record<RuntimeImageVariant, string>>;
}

export interface LocalFleet {
  url: string;
  cp: LocalControlPlane;
  /** What runs the runtimes: the process supervisor, or the container one (`--containers`). */
  supervisor: RuntimeLauncher;
  /** Agents that run the offline model: what is missing, and the key that would end it. */
  offline: Map<string, { reason: string; keyName: string }>;
  pollingAccounts: string[];
  /** What signs in to the dashboard and the /api/ routes: DASHBOARD_TOKEN from the secrets file, else the kept one in <state>/dashboard-token. */
  dashboardToken: string;
  status(): FleetStatus;
  stop(): Promise<void>;
}

// 'held' too: a fleet that starts ends any workspace hold of the last run (its holder sees so at its next renewal).
const ALL_STATES: (AgentState | 'absent')[] = ['absent', 'asleep', 'waking', 'awake', 'restarting', 'unhealthy', 'held'];
/** Entries the agent page counts in a workspace before it says "at least" (a refresh must stay cheap). */
const WORKSPACE_MEASURE_LIMIT = 20_000;
const WORKSPACE_MEASURE_EVERY_MS = 10_000;
/** Schedules the config owns (its jobs and heartbeats), replaced at every start; agents' own (`agent-…`) are kept. */
const CONFIG_SCHEDULE_PREFIXES = ['config-', 'heartbeat-'];

export async function startLocalFleet(opts: LocalFleetOptions): Promise<LocalFleet> {
  const log = opts.log ?? createLogger({ component: 'local' });
  const config = loadConfigFile(opts.configPath);
  const secrets = new FileSecretStore(opts.secretsPath);
  // Conversations, transcripts, memory and tokens live here: the owner's alone, whoever
  // writes them (this process, a runtime, a tool a runtime runs), from now on...
  const undo: (() => void | Promise<void>)[] = [holdStateUmask()];
  try {
    mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
    // ...one fleet at a time (the second start stops here, naming the first)...
    const lock = await lockStateDir(opts.stateDir, { pid: process.pid, startedAt: systemClock.now() });
    undo.push(() => lock.release());
    // ...and whatever an earlier run or version left readable to others, before a runtime runs.
    const { tightened, skipped } = tightenStateModes(opts.stateDir, [STATE_LOCK_FILE, `${STATE_LOCK_FILE}-journal`]);
    if (tightened) log.info('state directory made private: group and other permissions removed', { stateDir: opts.stateDir, entries: tightened, skipped });
    const fleet = await runLocalFleet(opts, log, config, secrets, undo);
    const [releaseUmask] = undo;
    return {
      ...fleet,
      async stop() {
        try {
          await fleet.stop();
        } finally {
          lock.release();
          releaseUmask!();
        }
      },
    };
  } catch (err) {
    for (const step of undo.reverse()) await Promise.resolve(step()).catch((e) => log.warn('cleanup after a failed start failed', errorFields(e)));
    if (isStorageFull(err))
      throw new ClawfleetError('STORAGE_FULL', `the state directory ${opts.stateDir} is full (${(err as Error).message}); free some space and start again`, {
        cause: err,
      });
    throw err;
  }
}

/** The fleet on a state directory this process holds; `undo` collects what a failed start must take back. */
async function runLocalFleet(
  opts: LocalFleetOptions,
  log: Logger,
  config: FleetConfig,
  secrets: FileSecretStore,
  undo: (() => void | Promise<void>)[],
): Promise<LocalFleet> {
  const storage = new StorageWatch(log, systemClock);
  const db = openStateDatabase(join(opts.stateDir, 'state.db'));
  undo.push(() => void db.close());
  let supervisor: RuntimeLauncher | undefined;
  const media = new FileMediaStore(join(opts.stateDir, 'media'));
  /** Agents that run the offline model, with the reason (set as each runtime's spec is made). */
  const offline = new Map<string, { reason: string; keyName: string }>();
  const cp = new LocalControlPlane(config, db, secrets, systemClock, log, {
    offlineModels: (agentId) => offline.get(agentId)?.reason,
    compute: new SupervisorCompute(() => supervisor),
    scheduleClock: opts.scheduleClock,
    media,
  });
  // Attachments and sent files expire after media.expireDays, as the bucket's lifecycle rule does on AWS: swept at start and every hour.
  const sweepMedia = () =>
    void media
      .deleteOlderThan(systemClock.now() - (config.media?.expireDays ?? MEDIA_EXPIRY_DAYS) * 86_400_000)
      .then((deleted) => deleted && log.info('expired media deleted', { files: deleted }))
      .catch((err) => log.warn('expired media not deleted now; the next sweep tries again', errorFields(err)));
  sweepMedia();
  const mediaSweep = setInterval(sweepMedia, 3_600_000);
  mediaSweep.unref();
  undo.push(() => clearInterval(mediaSweep));
  const logs = new RuntimeLogFiles(join(opts.stateDir, 'logs'), {
    failed: (err) => storage.failed(err, 'runtime log') || logFailure(err),
    wrote: () => storage.wrote(),
  });
  let logFailureSaid = false;
  function logFailure(err: unknown): boolean {
    // Any other reason a log line cannot be written (a read-only or deleted directory): said once.
    if (!logFailureSaid) log.warn('runtime log lines cannot be written; they are dropped', errorFields(err));
    logFailureSaid = true;
    return true;
  }
  /** A bookkeeping write (status, heartbeat, released messages) that must never take the fleet down. */
  const stateWrite = (where: string, write: () => void): void => {
    try {
      write();
      storage.wrote();
    } catch (err) {
      if (!storage.failed(err, where)) log.warn(`${where} not recorded`, errorFields(err));
    }
  };
  const adminToken = newAdminToken();

  // The config's cron jobs and heartbeats, as the CDK app makes them on AWS; before anything
  // starts, so a schedule this machine cannot evaluate stops the start with its name.
  const { removed } = cp.scheduler.replace(CONFIG_SCHEDULE_PREFIXES, configScheduleList(config));
  if (removed.length) log.info('schedules no longer in the config removed', { removed });

  // No runtime is alive yet: whatever was in flight when the last run stopped is due again.
  for (const agent of config.agents.list) {
    const released = cp.inbox(agent.id).releaseInFlight();
    const waiting = cp.inbox(agent.id).depth;
    if (waiting) log.info('messages waiting from the last run', { agentId: agent.id, waiting, released });
  }

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
        detail: info?.pid ? `${runsIn(a.id, info.pid)}${info.restarts ? `, ${info.restarts} restart${info.restarts === 1 ? '' : 's'}` : ''}` : undefined,
        warnings: cp.registry.record(a.id)?.warnings ?? [],
        ...spendOf(a.id),
      };
    }),
  });
  /** Where an agent's runtime runs: its container's name, or its process's pid. */
  const runsIn = (agentId: string, pid: number): string => {
    const container = supervisor instanceof ContainerSupervisor ? supervisor.container(agentId) : undefined;
    return container ? `container ${container}` : `pid ${pid}`;
  };
  /** A metered agent's spend (#31), from the control plane's count. */
  const spendOf = (agentId: string): { spend?: string } => {
    const caps = agentCaps(config, agentId);
    if (!caps) return {};
    const now = systemClock.now();
    const totals = cp.spend.totalsNow(agentId, now);
    const text = spendText(caps, totals);
    return { spend: spendStatusText({ text, reached: capReached(caps, totals, now) }, now) };
  };

  /**
   * An operator's command (CLI, dashboard): the registry says what the agent should be,
   * then the supervisor makes it so, as on AWS the registry write precedes the ECS call.
   */
  const act = async (agentId: string, action: LifecycleAction): Promise<RuntimeState> => {
    if (!config.agents.list.some((a) => a.id === agentId)) throw new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in this fleet`);
    // A workspace transfer has the workspace: the runtime stays stopped until it ends.
    if (cp.registry.record(agentId)?.state === 'held') {
      if (action === 'hibernate') return supervisor!.state(agentId);
      throw new ClawfleetError('AGENT_HELD', `${agentId} is held for a workspace transfer; it is woken when that ends`);
    }
    const now = systemClock.now();
    if (action === 'hibernate') await cp.registry.transition(agentId, ALL_STATES, 'asleep', now);
    else if (action === 'wake') await cp.registry.transition(agentId, ['absent', 'asleep'], 'waking', now);
    else await cp.registry.transition(agentId, ALL_STATES, 'waking', now);
    return supervisor!.act(agentId, action);
  };

  const holds = localWorkspaceHolds(cp.lifecycle!);
  const measured = new Map<string, { at: number; size: ReturnType<typeof measureWorkspace> | undefined }>();
  let lastSeenWrite = new Map<string, number>();
  const keptDashboardToken = localDashboardToken(opts.stateDir);
  const server = createLocalServer({
    cp,
    log,
    storage,
    allowedHosts: opts.allowedHosts,
    adminToken,
    dashboardToken: keptDashboardToken,
    agentOfToken: (token) => supervisor?.agentOfToken(token),
    agents: () => config.agents.list.map((a) => ({ id: a.id, name: a.name ?? a.id, model: modelOf(a.id), state: supervisor?.state(a.id) ?? 'stopped' })),
    status,
    act,
    workspaceHold: (agentId, op, body) => holds.act(agentId, op, body),
    workspace: measuredWorkspace((agentId) => {
      // The agent page refreshes every 2 s: a workspace is walked at most every 10 s.
      const cached = measured.get(agentId);
      if (cached && systemClock.now() - cached.at < WORKSPACE_MEASURE_EVERY_MS) return cached.size;
      const dir = join(opts.stateDir, 'workspaces', agentId);
      const size = existsSync(dir) ? measureWorkspace(dir, WORKSPACE_MEASURE_LIMIT) : undefined;
      measured.set(agentId, { at: systemClock.now(), size });
      return size;
    }, new FileWorkspaceSyncLog(opts.stateDir)),
    runtimeSeen: (agentId) => {
      // A runtime polling its queue is alive; written at most every few seconds.
      const now = systemClock.now();
      if (now - (lastSeenWrite.get(agentId) ?? 0) < 5_000) return;
      lastSeenWrite.set(agentId, now);
      stateWrite('runtime heartbeat', () => cp.status.heartbeat(agentId, now));
    },
  });
  undo.push(() => void server.close());
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
    if (reason && keyName) offline.set(agentId, { reason, keyName });
    else offline.delete(agentId);
    const skills = fleetSkillsDir(resolve(opts.configPath));
    // The stand-in's replies say how to give it the key, as a command to paste in the operator's
    // shell (this process's folder: `clawfleet start` runs the fleet in it).
    const offlineReason =
      reason && keyName
        ? `${reason}; ${giveKeyHint(keyName, agentId, { config: opts.configPath, secrets: opts.secretsPath, state: opts.stateDir }, process.cwd())}`
        : undefined;
    return { agentId, config: runtimeConfig, secrets: own, offlineReason, fleetSkills: existsSync(skills) ? skills : undefined };
  };

  // --containers: each runtime a container of the runtime image, which is its box and carries
  // its own OpenClaw and tool uid pool: no bubblewrap, no local OpenClaw install.
  const containers = (opts.runtimes ?? config.local?.runtimes ?? 'processes') === 'containers' ? await prepareContainers(opts, config, log) : undefined;

  // Each process runtime runs in a bubblewrap box of its own (runtime-box.ts), unless its
  // runtime.localSandbox is "off": that is said once, loudly, for each such agent.
  const unboxed = containers ? [] : config.agents.list.filter((a) => resolveAgent(config, a.id).runtime.localSandbox === 'off').map((a) => a.id);
  for (const agentId of unboxed)
    log.warn(
      `${agentId}'s runtime runs UNBOXED (runtime.localSandbox is "off"): it, and whatever it is tricked into doing, can read and write all you can — every agent's workspace, state.db, the admin and dashboard tokens, the secrets file`,
      { agentId },
    );
  const bubblewrap = opts.bubblewrap ?? (async () => (await import('./bubblewrap-install.ts')).ensureBubblewrap((line) => log.info(`bubblewrap: ${line}`)));
  // Found (or installed) now, or the fleet stops here saying what is missing, not each runtime in a restart loop.
  const boxing = !containers && unboxed.length < config.agents.list.length ? await boxingHere(bubblewrap) : undefined;

  // runtime.kind "openclaw": the pinned OpenClaw its gateways run on, installed on first use (≈ 800 MB, a minute or two).
  // An agent on an operator's gateway (mode "external") starts none, so needs no install.
  const managedOpenclaw = (id: string) => {
    const runtime = resolveAgent(config, id).runtime;
    return runtime.kind === 'openclaw' && runtime.openclaw?.mode !== 'external';
  };
  const openclaw =
    !containers && config.agents.list.some((a) => managedOpenclaw(a.id))
      ? (await import('./openclaw-install.ts')).ensureOpenclaw(opts.openclawRoot, (line) => log.info(`openclaw: ${line}`))
      : undefined;
  // Their gateways run only inside bubblewrap (runtime-image/src/openclaw/gateway-sandbox.ts),
  // which the boxes' check found already where any runtime is boxed.
  if (openclaw && !boxing) {
    try {
      await bubblewrap();
    } catch (err) {
      throw new ClawfleetError(
        'OPENCLAW_SANDBOX_UNAVAILABLE',
        `runtime.kind "openclaw" runs its gateway locally only inside bubblewrap, which is not installed and could not be: ${(err as Error).message} (docs/runtime.md, "The local sandbox")`,
      );
    }
  }

  const newLauncher = (...args: ConstructorParameters<typeof Supervisor>): RuntimeLauncher =>
    containers
      ? new ContainerSupervisor(args[0], args[1], args[2], args[3], { ...containers, uncheckedPathsForTests: opts.uncheckedPathsForTests === true })
      : new Supervisor(...args);
  supervisor = newLauncher(
    url,
    join(opts.stateDir, 'workspaces'),
    log,
    {
      respec: specFor,
      onStopping: (agentId, stopping) => server.draining(agentId, stopping),
      onLine: (agentId, line) => {
        const safe = JSON.parse(processRedactor.redact(JSON.stringify(line))) as Record<string, unknown>;
        logs.write(agentId, safe);
        if (safe.level === 'error' && typeof safe.msg === 'string') {
          const msg = safe.msg;
          stateWrite('runtime error', () => cp.status.error(agentId, typeof safe.error === 'string' ? `${msg}: ${safe.error}` : msg, systemClock.now()));
        }
        opts.onRuntimeLine?.(agentId, safe);
      },
      onExit: (agentId, code, signal, crashed) => {
        // A dead runtime's messages need not wait out their visibility timeout: its polls are
        // ended first, so none takes a message after the release. (On a full disk they are
        // not released now: they come back when their visibility runs out, as on SQS.)
        server.runtimeGone(agentId);
        stateWrite("release of an exited runtime's messages", () => {
          const released = cp.inbox(agentId).releaseInFlight();
          if (released) log.info('released messages of an exited runtime', { agentId, released });
        });
        if (crashed) {
          stateWrite('runtime exit', () => cp.status.error(agentId, `runtime exited (${signal ?? `code ${code}`})`, systemClock.now()));
          // The supervisor starts it again; its first heartbeat marks it awake.
          cp.registry
            .transition(agentId, ['awake', 'waking'], 'restarting', systemClock.now())
            .catch((err) => storage.failed(err, 'registry') || log.warn('registry not updated', { agentId, ...errorFields(err) }));
        }
        logs.write(agentId, { level: crashed ? 'warn' : 'info', msg: 'runtime process exited', code, signal });
      },
    },
    {
      hide: [opts.secretsPath],
      ...(openclaw ? { openclaw: { node: openclaw.node, cli: openclaw.cli } } : {}),
      ...(boxing ? { boxing } : {}),
      uncheckedPathsForTests: opts.uncheckedPathsForTests === true,
    },
  );
  undo.push(() => supervisor!.stop());

  // Each box as it will be made, before any runtime starts: one that cannot be (a path it would
  // show holds the secrets file) stops the start naming the agent; and one box is made for real.
  const specs = [];
  for (const agent of config.agents.list) specs.push(await specFor(agent.id));
  const processes = supervisor instanceof Supervisor ? supervisor : undefined;
  const boxed = processes ? specs.filter((spec) => !unboxed.includes(spec.agentId)) : [];
  for (const spec of boxed) {
    try {
      processes!.boxReadOnlyFor(spec);
    } catch (err) {
      if (err instanceof ClawfleetError) throw new ClawfleetError(err.code, `${spec.agentId}: ${err.message}`, { cause: err });
      throw err;
    }
  }
  if (processes && boxing && boxed[0]) await probeBox(processes.startFor(boxed[0], PROBE_ARGV), boxing.bwrap);

  // Every agent runs from the start (a hibernated one too); its first heartbeat marks it awake.
  for (const spec of specs) {
    await cp.registry.transition(spec.agentId, ALL_STATES, 'waking', systemClock.now());
    supervisor.start(spec);
  }
  // After every health tick: what CloudWatch's alarms watch on AWS, told to the operator's chat on a change.
  const alarms = new LocalAlarms();
  const alertDeps = cp.operatorAlertDeps();
  const snapshot = (): AgentSnapshot[] =>
    config.agents.list.map((a) => {
      const info = supervisor!.info(a.id);
      return {
        id: a.id,
        restarts: info.restarts,
        state: info.state,
        startedAt: info.startedAt,
        inboxDlq: cp.inboxDlq(a.id).depth,
        outboxDlq: cp.dlq(a.id).depth,
        warnings: cp.registry.record(a.id)?.warnings ?? [],
      };
    });
  const health = startHealthLoop(config, cp.lifecycle!, undefined, async (failure) => {
    const now = systemClock.now();
    await tellOperator(alarms, localConditions(config, snapshot(), failure, now), now, alertDeps);
  });
  const cron = startCronLoop({ scheduler: cp.scheduler, dispatch: cp.cronDispatch, clock: opts.scheduleClock ?? systemClock, log });
  undo.push(
    () => health.stop(),
    () => cron.stop(),
  );

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
  undo.push(() => pollers.forEach((p) => p.stop()));

  writeAdminFile(opts.stateDir, { url, token: adminToken, pid: process.pid, startedAt: systemClock.now() });

  return {
    url,
    cp,
    supervisor,
    offline,
    pollingAccounts,
    dashboardToken: (await cp.dashboardToken()) ?? keptDashboardToken,
    status,
    async stop() {
      clearInterval(mediaSweep);
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

/**
 * Before a container runtime starts: an engine that answers (else a clear error naming what is
 * missing), the image of every stage the agents run (built here unless handed in), and no
 * container of an earlier run of this fleet left (one killed before it could stop them).
 */
async function prepareContainers(opts: LocalFleetOptions, config: FleetConfig, log: Logger) {
  const docker = opts.docker ?? 'docker';
  const variants = config.agents.list.map((a) => {
    const agent = resolveAgent(config, a.id);
    const problem = imageVariantProblem(agent);
    if (problem) throw new ClawfleetError('RUNTIME_KIND_UNSUPPORTED', `${a.id}: ${problem}`);
    // An image of the operator's own runs as that image says (no tool uid pool, its own command): not wired locally yet.
    if (agent.runtime.image !== undefined)
      throw new ClawfleetError(
        'RUNTIME_KIND_UNSUPPORTED',
        `${a.id}: runtime.image ("${agent.runtime.image}") is not supported with --containers yet: local containers run the stages of runtime-image/Dockerfile; start without --containers, or remove runtime.image for local runs`,
      );
    return imageVariantFor(agent);
  });
  const version = await containerEngineVersion(docker);
  const images = await runtimeImages(variants, { docker, given: opts.runtimeImages, say: (line) => log.info(line) });
  // This fleet's containers, named by its state directory (one fleet holds it at a time).
  const scope = createHash('sha256').update(realpathSync(opts.stateDir)).digest('hex').slice(0, 12);
  await removeLeftoverContainers(docker, scope, log);
  log.info('runtimes run as containers', { engine: version, images: Object.fromEntries([...images].map(([v, i]) => [v, i.tag])) });
  return { docker, images, scope };
}
