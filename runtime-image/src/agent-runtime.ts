// One agent's runtime, composed: its secrets awaited (secret-wait.ts), workspace seeded, model chain,
// tools (built-in and MCP, filtered by the agent's policy), the worker over its queue,
// and heartbeats. main.ts gives it its queues and secrets; tests can give it fakes.
import { writeFileSync } from 'node:fs';
import type { Logger } from '../../shared/log.ts';
import { errorFields, processRedactor } from '../../shared/log.ts';
import type { Clock, DeadLetters, Inbox, MediaStore, Outbox } from '../../shared/ports.ts';
import type { RuntimeEnv } from './env.ts';
import type { McpHost, McpState } from './mcp/mcp-host.ts';
import { preloadProvider, type ModelClient } from './model.ts';
import { modelForAgent, providerApis } from './model-for-agent.ts';
import { offlineModel } from './offline-model.ts';
import { secretMasker } from './secret-mask.ts';
import type { SandboxChoice } from './sandbox/choose-sandbox.ts';
import { chooseSandboxAtStart, execWanted, sandboxedServers } from './sandbox-at-start.ts';
import { checkOwnSecretId } from './secrets.ts';
import { awaitSecrets } from './secret-wait.ts';
import { execSetup } from './tools/exec-tool.ts';
import { fileTools } from './tools/file-tools.ts';
import { memoryTools } from './tools/memory-tools.ts';
import { requestTools } from './tools/request-tools.ts';
import { sendFileTool } from './tools/send-file-tool.ts';
import { transcriberFor } from './media/transcribe.ts';
import type { AgentTool } from './tools/tool.ts';
import { toolAllowed } from './tools/tool-policy.ts';
import { webFetchTool } from './tools/web-fetch.ts';
import { TranscriptStore } from './transcript.ts';
import { WorkspaceAttemptLog } from './attempt-log.ts';
import { defaultTurnLimits, giveUpTurn, runTurn } from './turn.ts';
import { turnRequestFor } from './turn-request.ts';
import { seedWorkspace } from './workspace.ts';
import { Worker, type ControlAction } from './worker.ts';

export const RUNTIME_VERSION = '0.2.0';
/** A heartbeat warning's length limit (the envelope's schema). */
const WARNING_MAX = 500;

export interface RuntimeParts {
  env: RuntimeEnv;
  inbox: Inbox;
  outbox: Outbox;
  deadLetters: DeadLetters;
  /** This agent's secret values as the launcher gave them (locally: the pipe). */
  secrets: Record<string, string>;
  /** Reads the agent's own secret (AWS): then `secrets` is ignored, and a value still missing is read again until it is set. */
  readSecrets?: () => Promise<Record<string, string>>;
  /** This agent's files in the media store (#16); absent, attachments arrive as notes and send_file is not offered. */
  media?: MediaStore;
  /** Aborted when the process is asked to stop before it has started (while it waits for its secret). */
  stopSignal?: AbortSignal;
  clock: Clock;
  log: Logger;
  /** For tests: a model instead of the configured providers. */
  model?: ModelClient;
  /** The sandbox, when the caller started looking for it already (chooseSandboxAtStart); else looked for here. */
  sandbox?: Promise<SandboxChoice | undefined>;
  /** Called when the runtime must end: 0 after a drain, 1 after an unrecoverable error. */
  exit(code: number): void;
}

export interface AgentRuntime {
  mcp: McpHost | undefined;
  worker: Worker;
  tools(): AgentTool[];
  /** Stops polling, lets turns in flight finish for `drainMs` (default: the environment's), then aborts them. */
  stop(drainMs?: number): Promise<void>;
}

/** The built-in tools; `exec` only when the runtime found a way to run it (see execSetup). */
export function builtinTools(env: RuntimeEnv, clock: Clock, exec?: AgentTool, media?: MediaStore): AgentTool[] {
  return [
    ...fileTools(env.workspace),
    ...(exec ? [exec] : []),
    ...memoryTools(env.workspace),
    ...requestTools(env.agentId, clock),
    webFetchTool({ allowPrivateHosts: env.config.agent.tools?.web?.fetch?.allowPrivateHosts }),
    ...(media ? [sendFileTool(env.agentId, env.workspace, media, clock)] : []),
  ];
}

/**
 * The sandbox (being looked for since `choosing` started, see sandbox-at-start.ts) and what
 * follows from it: exec, and the warnings the operator must see: exec off for want of a
 * sandbox, exec unsandboxed, an MCP server not started.
 */
async function sandboxFor(env: RuntimeEnv, choosing: Promise<SandboxChoice | undefined>): Promise<{ choice: SandboxChoice | undefined; exec: AgentTool | undefined; warnings: string[] }> {
  const agent = env.config.agent;
  const choice = await choosing;
  const exec = execWanted(agent) ? execSetup(agent.tools?.exec, choice, env.workspace) : {};
  const warnings = [
    ...(exec.warning ? [exec.warning] : []),
    ...(choice?.sandbox ? [] : sandboxedServers(agent).map((id) => `MCP server "${id}" is not started: its config asks for a sandbox and none is available (${choice?.unavailable})`)),
  ];
  return { choice, exec: exec.tool, warnings };
}

export async function startAgentRuntime(parts: RuntimeParts): Promise<AgentRuntime> {
  const { env, log, clock, outbox } = parts;
  const agent = env.config.agent;
  checkOwnSecretId(env.config, env.secretId);
  // Fresh from the first moment: a runtime waiting for its secret is alive, and must not be replaced.
  const healthTimer = env.healthFile ? keepHealthFile(env.healthFile) : undefined;
  let secrets: Record<string, string>;
  try {
    secrets = await awaitSecrets({
      config: env.config,
      secretId: env.secretId,
      modelKeys: !env.offlineModel && !parts.model,
      read: parts.readSecrets ?? (async () => parts.secrets),
      howToSet: `clawfleet secrets set <NAME> --agent ${env.agentId}${env.transport.kind === 'aws' ? ' --aws' : ''} (< value), which restarts the agent`,
      outbox,
      clock,
      log,
      version: RUNTIME_VERSION,
      heartbeatMs: env.heartbeatMs,
      signal: parts.stopSignal,
    });
  } catch (err) {
    clearInterval(healthTimer);
    throw err;
  }
  processRedactor.add(...Object.values(secrets));

  const seeded = seedWorkspace(env.workspace);
  if (seeded.length > 0) log.info('workspace seeded from the template', { files: seeded });

  const model =
    parts.model ??
    (env.offlineModel
      ? offlineModel(env.offlineModel)
      : modelForAgent(env.config, secrets, env.secretId, {
          contextWindow: env.contextTokens,
          retry: { attemptsPerModel: 3, baseDelayMs: env.modelRetryBaseMs, maxDelayMs: 10_000 },
          onFailure: (a) => log.warn('model call failed', { ...a }),
        }));

  const allowed = toolAllowed(agent.tools);
  const sandboxing = await sandboxFor(env, parts.sandbox ?? chooseSandboxAtStart(env));
  if (sandboxing.choice?.sandbox) log.info('sandbox for code the agent chooses', { sandbox: sandboxing.choice.sandbox.description });
  // Loud: an operator must notice exec running unsandboxed, or missing for want of a sandbox.
  for (const warning of sandboxing.warnings) log.warn(warning);
  const builtins = builtinTools(env, clock, sandboxing.exec, parts.media).filter((t) => allowed(t.name));
  const servers = agent.mcp?.servers ?? {};
  // The MCP host (and the SDK behind it) is loaded only by an agent that has servers.
  const mcp = Object.keys(servers).length > 0 ? new (await import('./mcp/mcp-host.ts')).McpHost(servers, { workspace: env.workspace, runtimeState: env.runtimeState, secrets, log, sandbox: sandboxing.choice }) : undefined;
  await mcp?.start();
  const tools = () => [...builtins, ...(mcp?.tools() ?? []).filter((t) => allowed(t.name))];

  const transcripts = new TranscriptStore(env.workspace);
  const turnDeps = {
    agentId: env.agentId,
    agentName: agent.name ?? agent.id,
    workspace: env.workspace,
    transcripts,
    model,
    outbox,
    clock,
    log,
    tools,
    // The runtime's own token to the local control plane is a secret of this agent too.
    masker: secretMasker([...Object.values(secrets), ...(env.transport.kind === 'local' ? [env.transport.token] : [])]),
    limits: { ...defaultTurnLimits, turnTimeoutMs: env.turnTimeoutMs, compactAtTokens: env.compactAtTokens },
    media: {
      agentId: env.agentId,
      workspace: env.workspace,
      store: parts.media,
      imageInput: model.imageInput ?? false,
      transcribe: transcriberFor(env.config, secrets),
      echoTranscript: agent.tools?.media?.audio?.echoTranscript,
    },
  };

  let stopping: Promise<void> | undefined;
  const stop = (drainMs = env.drainMs) => (stopping ??= (async () => {
    clearInterval(heartbeatTimer);
    clearInterval(healthTimer);
    await worker.stop(drainMs);
    await mcp?.stop();
  })());

  const control = async (action: ControlAction) => {
    if (action === 'reload') {
      await mcp?.restart();
      log.info('reloaded', { mcp: mcp?.status() });
      return;
    }
    // drain: the worker stopped polling when it saw the envelope; finish the rest and leave.
    void stop().then(() => parts.exit(0), () => parts.exit(1));
  };

  const worker = new Worker({
    agentId: env.agentId,
    inbox: parts.inbox,
    outbox,
    deadLetters: parts.deadLetters,
    clock,
    log,
    visibilitySeconds: env.visibilitySeconds,
    waitSeconds: env.waitSeconds,
    maxConcurrent: env.maxSessions,
    handle: (envelope, signal) => runTurn(turnRequestFor(envelope), turnDeps, signal),
    maxReceiveCount: env.maxReceiveCount,
    giveUp: (envelope, attempts) => giveUpTurn(turnRequestFor(envelope), turnDeps, attempts),
    attempts: new WorkspaceAttemptLog(env.workspace),
    control,
    isFatal: isFatalReceiveError,
    onFatal: () => void stop().then(() => parts.exit(1), () => parts.exit(1)),
  });

  // Announce: version and capabilities, then a heartbeat every so often.
  const startedAt = clock.now();
  let beats = 0;
  const capabilities = [...tools().map((t) => `tool:${t.name}`), ...Object.keys(servers).map((s) => `mcp:${s}`), `model:${model.label}`].slice(0, 512);
  const beat = (announce: boolean) =>
    outbox
      .send({
        v: 1,
        kind: 'heartbeat',
        id: `hb.${env.agentId}.${startedAt}.${beats++}`,
        agentId: env.agentId,
        ts: clock.now(),
        version: RUNTIME_VERSION,
        inFlight: worker.busy,
        ...(announce ? { capabilities } : {}),
        ...(mcp ? { mcp: mcpReport(mcp) } : {}),
        warnings: sandboxing.warnings.slice(0, 16).map((w) => processRedactor.redact(w).slice(0, WARNING_MAX)),
      })
      .catch((err) => log.warn('heartbeat not sent', errorFields(err)));
  // The announcement and the first poll go out together, one round trip rather than two (an
  // SQS send on AWS); the start returns, and says ready, once the announcement is sent.
  const announced = beat(true);
  const heartbeatTimer = env.heartbeatMs > 0 ? setInterval(() => void beat(false), env.heartbeatMs) : undefined;
  heartbeatTimer?.unref();

  worker.start();
  await announced;
  log.info('ready', { version: RUNTIME_VERSION, model: model.label, transport: env.transport.kind, workspace: env.workspace, tools: tools().length, mcp: mcp?.status(), sandbox: sandboxing.choice?.sandbox?.kind ?? 'none' });
  // What the first turn would otherwise wait for is done just after ready: the provider
  // modules loaded, each built-in tool's JSON Schema worked out (tool.ts).
  if (!parts.model && !env.offlineModel) for (const api of providerApis(env.config)) void preloadProvider(api);
  setImmediate(() => {
    for (const tool of builtins) void tool.parameters;
  });

  return { mcp, worker, tools, stop };
}

/** Receive errors that retrying cannot fix: the queue is gone or we may not read it. */
export function isFatalReceiveError(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name ?? '';
  const message = err instanceof Error ? err.message : '';
  return (
    /QueueDoesNotExist|NonExistentQueue|AccessDenied|InvalidClientTokenId|UnrecognizedClientException|InvalidSecurity/.test(name) ||
    /control plane receive failed: 401/.test(message)
  );
}

/** Writes the time to `file` every 10 s while the event loop runs: the container health check reads its age. */
function keepHealthFile(file: string): NodeJS.Timeout {
  const touch = () => {
    try {
      writeFileSync(file, String(Date.now()));
    } catch {
      // The health check will say so.
    }
  };
  touch();
  const timer = setInterval(touch, 10_000);
  timer.unref();
  return timer;
}

/** Each MCP server's state for the heartbeat; an error text is redacted, as log lines are. */
function mcpReport(host: McpHost): Record<string, { state: McpState; tools: number; error?: string }> {
  return Object.fromEntries(
    Object.entries(host.status()).map(([name, s]) => [
      name.slice(0, 64),
      { state: s.state, tools: s.tools, ...(s.lastError && s.state !== 'ready' ? { error: processRedactor.redact(s.lastError).slice(0, 500) } : {}) },
    ]),
  );
}
