// runtime.kind "openclaw", managed mode: the agent runs on a pinned OpenClaw release as a
// one-agent gateway on loopback, a child of this runtime that sees only this agent's own
// secret values (openclaw/gateway-process.ts), and a bridge in this process takes the
// agent's queue as the native worker does — same worker, same receipts, drain and
// give-up — and drives the gateway over its WebSocket API (openclaw/bridge-turn.ts).
// Heartbeats (heartbeats.ts), the ready line and the container health file are every kind's, so the
// registry's states, the launcher's restarts and ECS's health check work unchanged. External
// mode starts no gateway: the bridge connects to an operator's (openclaw/external-gateway.ts)
// and takes no message until it is in.
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayUrlProblem } from '../../../shared/config/openclaw-gateway-url.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { processRedactor } from '../../../shared/log.ts';
import { AnswerJournal } from '../openclaw/answer-journal.ts';
import { bridgeGiveUp, bridgeTurn, type BridgeDeps } from '../openclaw/bridge-turn.ts';
import { deviceIdentityFromSecret, loadOrCreateDeviceIdentity } from '../openclaw/device-identity.ts';
import { deviceKeyRedactions, OPENCLAW_DEVICE_KEY } from '../../../shared/secrets/openclaw-device-key.ts';
import { ExternalGateway } from '../openclaw/external-gateway.ts';
import { waitingBeats } from '../liveness/waiting-beats.ts';
import type { GatewayClient } from '../openclaw/gateway-client.ts';
import { checkPinnedInstall, startManagedGateway, type OpenclawInstallPaths } from '../openclaw/gateway-process.ts';
import { localGatewaySandbox, mcpServerReadOnly, sandboxedInstall } from '../openclaw/gateway-sandbox.ts';
import type { BwrapSandbox } from '../../../shared/adapters/sandbox/bwrap-sandbox.ts';
import { GatewaySupervisor } from '../openclaw/gateway-supervisor.ts';
import { moveLegacyState } from '../openclaw/legacy-state.ts';
import { downNoLongerThan, keepHealthFile } from '../liveness/health-file.ts';
import { transcriberFor } from '../media/transcribe.ts';
import { secretMasker } from '../secrets/secret-mask.ts';
import { checkOwnSecretId } from '../secrets/own-secret.ts';
import { awaitAgentSecrets, howToSetSecret } from '../secrets/secret-wait.ts';
import { turnRequestFor } from '../turn/turn-request.ts';
import type { ControlAction } from '../worker/worker.ts';
import { runtimeWorker } from '../worker/runtime-worker.ts';
import { startHeartbeats } from '../liveness/heartbeats.ts';
import { RUNTIME_VERSION, type RunningRuntime, type RuntimeParts } from './runtime-kind.ts';

/**
 * A gateway down this long (not started, or not restarted however often it was tried) leaves
 * the health file to age, so ECS replaces the task: a new task starts from a clean task
 * storage, which a stuck restart loop in this one cannot.
 */
const GATEWAY_DOWN_UNHEALTHY_MS = 5 * 60_000;

/**
 * OpenClaw's state (its sessions, memory index and databases) lives in the agent's
 * workspace — on AWS its EFS volume — so a replaced or woken task carries on the same
 * conversations, as native's transcripts do. Its config (the keys, the gateway's token) stays
 * in the runtime's own state: written afresh at every start, never on the shared volume.
 * Top level, not under .clawfleet/ (the runtime's, which the gateway's user need not reach).
 */
export const openclawStateDir = (workspace: string): string => join(workspace, '.openclaw-state');

/** What the bridge drives: a managed gateway's supervisor, or the connection to an operator's gateway. */
interface GatewaySource {
  connected(signal: AbortSignal): Promise<GatewayClient>;
  current(): GatewayClient | undefined;
  stop(): Promise<void>;
  readonly pid: number | undefined;
  /** Why turns wait, for heartbeats; undefined when connected. */
  warning(): string | undefined;
}

export async function startOpenclawRuntime(parts: RuntimeParts): Promise<RunningRuntime> {
  const { env } = parts;
  // Fresh from the first moment (a runtime waiting for its secret is alive; the gateway takes
  // ~30 s to start), and left to age once its gateway has been down too long.
  let gateway: Pick<GatewaySource, 'current'> | undefined;
  // Before there is a gateway to start (the secret awaited) the runtime is well.
  const gatewayWell = downNoLongerThan(GATEWAY_DOWN_UNHEALTHY_MS, () => !gateway || gateway.current() !== undefined);
  const healthTimer = env.healthFile ? keepHealthFile(env.healthFile, gatewayWell) : undefined;
  try {
    return await startOpenclaw(
      parts,
      (g) => (gateway = g),
      () => clearInterval(healthTimer),
    );
  } catch (err) {
    clearInterval(healthTimer);
    throw err;
  }
}

async function startOpenclaw(
  parts: RuntimeParts,
  supervised: (gateway: Pick<GatewaySource, 'current'>) => void,
  stopHealth: () => void,
): Promise<RunningRuntime> {
  const { env, log, clock, outbox } = parts;
  const agent = env.config.agent;
  checkOwnSecretId(env.config, env.secretId);
  const options = agent.runtime.openclaw ?? {};
  const mode = options.mode ?? 'managed';
  let external: { url: string; tokenSecret: string } | undefined;
  if (mode === 'external') {
    // Config load refused these already; a last guard for a config that did not come through it.
    const urlProblem = options.url ? gatewayUrlProblem(options.url, options.allowInsecureWs) : 'is missing';
    const problem = urlProblem ? `url ${urlProblem}` : options.tokenSecret ? undefined : 'tokenSecret is missing';
    if (problem) throw new ClawfleetError('RUNTIME_KIND_UNSUPPORTED', `runtime.openclaw (mode "external"): ${problem} (docs/runtime.md, "External mode")`);
    external = { url: options.url!, tokenSecret: options.tokenSecret! };
  }
  const { node, cli, readyMs, runAs } = env.openclaw;
  if (!external && (!node || !cli)) {
    throw new ClawfleetError(
      'OPENCLAW_NOT_INSTALLED',
      'runtime.kind "openclaw" needs CLAWFLEET_OPENCLAW_NODE and CLAWFLEET_OPENCLAW_CLI: `npm start` sets them after installing the pinned OpenClaw, and on AWS the runtime image\'s openclaw stage does (an image of another stage has no OpenClaw; docs/runtime.md, "Installing OpenClaw")',
    );
  }
  // On AWS the container's first process (tini) keeps the task role's credentials URI in its
  // environment (the runtime takes it out of its own), and the runtime's memory holds it: a
  // gateway running as root (an image of the operator's own without the openclaw stage's user)
  // could read either, and everything OpenClaw runs with it. The image's stage names the user;
  // refuse without one.
  if (!external && env.transport.kind === 'aws' && !runAs && process.getuid?.() === 0) {
    throw new ClawfleetError(
      'OPENCLAW_NOT_INSTALLED',
      'runtime.kind "openclaw" on AWS runs its gateway as a user of its own, never root: set CLAWFLEET_OPENCLAW_UID and CLAWFLEET_OPENCLAW_GID (the runtime image\'s openclaw stage does; docs/runtime.md, "The openclaw image")',
    );
  }
  const placement = env.transport.kind === 'aws' ? 'aws' : 'local';
  // Locally, nothing but bubblewrap keeps the gateway's tools from the fleet's secrets file and
  // the other agents: found (or refused) now, before the secret is awaited or anything written.
  const local = !external && placement === 'local' ? await localGateway(env, { node: node!, cli: cli! }) : undefined;
  // On AWS an external agent's device key must be in its secret (a task keeps nothing).
  const secrets = await awaitAgentSecrets(parts, { modelKeys: !external, placement });
  const deviceKey = external ? secrets[OPENCLAW_DEVICE_KEY] : undefined;
  // A log line is JSON: the PEM's escaped newlines hide the whole value, not its body line.
  if (deviceKey) processRedactor.add(...deviceKeyRedactions(deviceKey));

  let gateway: GatewaySource;
  let client: GatewayClient;
  if (external) {
    const wait = waitingBeats({
      agentId: env.agentId,
      heartbeatMs: env.heartbeatMs,
      clock,
      outbox,
      log,
      version: RUNTIME_VERSION,
      label: 'gateway-wait',
    });
    const connection = new ExternalGateway({
      url: external.url,
      token: secrets[external.tokenSecret]!,
      tokenName: external.tokenSecret,
      howToSet: howToSetSecret(env, external.tokenSecret),
      // The agent's secret's key when it holds one (on AWS it must: awaited above); else,
      // locally, one made in the runtime's own state, hidden from the sandbox.
      device: deviceKey
        ? deviceIdentityFromSecret(
            deviceKey,
            OPENCLAW_DEVICE_KEY,
            `clawfleet openclaw device --agent ${env.agentId}${placement === 'aws' ? ' --aws' : ''} --replace`,
          )
        : loadOrCreateDeviceIdentity(join(env.runtimeState, 'openclaw-device', 'device-key.pem')),
      clientVersion: RUNTIME_VERSION,
      log,
      onWarning: (w) => wait.say(w),
    });
    // Not handed to the health rule: replacing this task would not bring an operator's
    // gateway back, and its waits are said in heartbeats instead.
    const onStop = () => void connection.stop();
    parts.stopSignal?.addEventListener('abort', onStop, { once: true });
    try {
      client = await connection.start();
    } finally {
      wait.end();
      parts.stopSignal?.removeEventListener('abort', onStop);
    }
    gateway = connection;
  } else {
    const gatewayDir = local?.gatewayDir ?? join(env.runtimeState, 'openclaw');
    const workspace = local?.workspace ?? env.workspace;
    moveLegacyState(join(gatewayDir, 'state'), openclawStateDir(workspace), log);
    const supervisor = new GatewaySupervisor({
      clientVersion: RUNTIME_VERSION,
      log,
      start: () =>
        startManagedGateway({
          install: local?.install ?? { node: node!, cli: cli! },
          dir: gatewayDir,
          stateDir: openclawStateDir(workspace),
          ...(runAs ? { runAs } : {}),
          ...(local ? { sandbox: { sandbox: local.sandbox, readOnly: local.readOnly } } : {}),
          config: { config: env.config, secrets, workspace },
          log,
          readyTimeoutMs: readyMs,
        }),
    });
    supervised(supervisor);
    client = await supervisor.start();
    gateway = Object.assign(supervisor, { warning: () => (supervisor.current() ? undefined : 'the OpenClaw gateway is restarting') });
  }
  const deps: BridgeDeps = {
    agentId: env.agentId,
    outbox,
    clock,
    log,
    journal: new AnswerJournal(env.workspace),
    gateway: (signal) => gateway.connected(signal),
    turnTimeoutMs: env.turnTimeoutMs,
    masker: secretMasker(Object.values(secrets)),
    external: external ? { gatewayAgent: options.agent ?? env.agentId } : undefined,
    // Attachments into the managed gateway's workspace (it is env.workspace); an operator's
    // gateway has its own, so there they are only said to have been sent.
    media: external ? undefined : { agentId: env.agentId, workspace: env.workspace, store: parts.media, transcribe: transcriberFor(env.config, secrets) },
  };

  let stopping: Promise<void> | undefined;
  const stop = (drainMs = env.drainMs) =>
    (stopping ??= (async () => {
      heartbeats.stop();
      await worker.stop(drainMs);
      await gateway.stop();
      stopHealth();
    })());
  const control = async (action: ControlAction) => {
    if (action === 'reload') {
      log.info('reload: nothing to re-read; the OpenClaw gateway restarts with the runtime');
      return;
    }
    void stop().then(
      () => parts.exit(0),
      () => parts.exit(1),
    );
  };
  const worker = runtimeWorker(parts, {
    handle: async (envelope, signal) => {
      const req = turnRequestFor(envelope);
      // A user's reaction (#31) is a note for the next turn, which the gateway keeps no place for (the
      // control plane queues none for this kind; one queued before a config change is dropped here).
      if (req.note) {
        parts.log.info('reaction not kept: the openclaw kind keeps no notes between turns', { envelopeId: envelope.id });
        return 'silent';
      }
      return bridgeTurn(req, deps, signal);
    },
    giveUp: (envelope, attempts) => bridgeGiveUp(turnRequestFor(envelope), deps, attempts),
    control,
    stop,
  });

  const heartbeats = startHeartbeats(
    { agentId: env.agentId, outbox, clock, log, heartbeatMs: env.heartbeatMs },
    {
      capabilities: [
        'runtime:openclaw',
        `openclaw-mode:${mode}`,
        `openclaw:${client.server.version ?? 'unknown'}`,
        `openclaw-protocol:${client.server.protocol}`,
        `model:${agent.model.primary}`,
      ],
      inFlight: () => worker.busy,
      warnings: () => {
        const waiting = gateway.warning();
        return waiting ? [waiting] : [];
      },
    },
  );
  worker.start();
  await heartbeats.announced;
  log.info('ready', {
    version: RUNTIME_VERSION,
    kind: 'openclaw',
    mode,
    openclaw: client.server.version,
    protocol: client.server.protocol,
    gatewayPid: gateway.pid,
    model: agent.model.primary,
    transport: env.transport.kind,
    workspace: env.workspace,
  });
  return { stop };
}

/**
 * A local managed gateway's sandbox, and the paths it is started with: real ones, as only
 * those exist inside (a workspace or install reached through a link would not be found).
 */
async function localGateway(
  env: RuntimeParts['env'],
  install: OpenclawInstallPaths,
): Promise<{ sandbox: BwrapSandbox; install: OpenclawInstallPaths; readOnly: string[]; workspace: string; gatewayDir: string }> {
  checkPinnedInstall(install);
  const gatewayDir = join(env.runtimeState, 'openclaw');
  mkdirSync(gatewayDir, { recursive: true, mode: 0o700 });
  mkdirSync(env.workspace, { recursive: true });
  const dirs = { workspace: realpathSync(env.workspace), gatewayDir: realpathSync(gatewayDir) };
  const sandbox = await localGatewaySandbox(env.sandbox, dirs);
  const shown = sandboxedInstall(install);
  const servers = mcpServerReadOnly(env.config.agent.mcp?.servers, env.sandbox.hide);
  return { sandbox, install: shown.install, readOnly: [...new Set([...shown.readOnly, ...servers])], ...dirs };
}
