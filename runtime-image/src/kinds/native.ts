// One agent's runtime, composed: its secrets awaited (secret-wait.ts), workspace seeded, model chain,
// tools (built-in and MCP, filtered by the agent's policy), the worker over its queue,
// and heartbeats. main.ts gives it its queues and secrets; tests can give it fakes.

import { join } from 'node:path';
import type { Logger } from '../../../shared/log.ts';
import { errorFields, processRedactor } from '../../../shared/log.ts';
import type { Clock, MediaStore } from '../../../shared/ports.ts';
import { capsOf } from '../../../shared/budget/budget.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import type { SpendMeter } from '../spend/metered-model.ts';
import type { RuntimeEnv } from '../env.ts';
import type { McpHost, McpState } from '../mcp/mcp-host.ts';
import { preloadProvider, type ModelClient } from '../model/model.ts';
import { modelForAgent, modelRefs, providerApis } from '../model/model-for-agent.ts';
import type { ModelAttempt } from '../model/model-chain.ts';
import { offlineModel } from '../model/offline-model.ts';
import { secretMasker } from '../secrets/secret-mask.ts';
import type { SandboxChoice } from '../../../shared/adapters/sandbox/choose-sandbox.ts';
import { chooseSandboxAtStart } from '../sandbox/sandbox-at-start.ts';
import { execWanted, sandboxedServers } from '../../../shared/tools/sandbox-needs.ts';
import { checkOwnSecretId } from '../secrets/own-secret.ts';
import { awaitAgentSecrets } from '../secrets/secret-wait.ts';
import { execSetup } from '../tools/exec-tool.ts';
import { fileTools } from '../tools/file-tools.ts';
import { memoryTools } from '../tools/memory-tools.ts';
import { requestTools } from '../tools/request-tools.ts';
import { sendFileTool } from '../tools/send-file-tool.ts';
import { transcriberFor } from '../media/transcribe.ts';
import { speaker } from '../speech/spoken-reply.ts';
import type { AgentTool } from '../tools/tool.ts';
import { toolAllowed } from '../../../shared/tools/tool-policy.ts';
import { webFetchTool } from '../tools/web-fetch.ts';
import { searchKeyName } from '../../../shared/config/schema.ts';
import { skillAccess } from '../../../shared/config/skill-tools.ts';
import { webSearchTool } from '../tools/web-search.ts';
import { TranscriptStore } from '../session/transcript-store.ts';
import { giveUpTurn, runTurn } from '../turn/turn.ts';
import { defaultTurnLimits } from '../turn/turn-deps.ts';
import { turnRequestFor } from '../turn/turn-request.ts';
import { seedWorkspace } from '../workspace/bootstrap.ts';
import { keepHealthFile } from '../liveness/health-file.ts';
import { agentSkills } from '../skills/agent-skills.ts';
import { pathHost } from '../../../shared/adapters/fs/skill-discovery.ts';
import { copyFleetSkills, FLEET_SKILLS_DIR, unpackFleetSkills } from '../skills/fleet-skills.ts';
import type { AgentBrowser } from '../browser/agent-browser.ts';
import { fetchPolicy } from '../net/fetch-guard.ts';
import type { ControlAction, Worker } from '../worker/worker.ts';
import { startHeartbeats } from '../liveness/heartbeats.ts';
import { RUNTIME_VERSION, type RuntimeParts } from './runtime-kind.ts';
import { runtimeWorker } from '../worker/runtime-worker.ts';

export interface AgentRuntime {
  mcp: McpHost | undefined;
  worker: Worker;
  tools(): AgentTool[];
  /** Stops polling, lets turns in flight finish for `drainMs` (default: the environment's), then aborts them. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * The built-in tools; `exec` only when the runtime found a way to run it (see execSetup),
 * web_search only when tools.web.search is configured (its key is then a required secret),
 * send_file only where the runtime has a media store.
 */
export function builtinTools(env: RuntimeEnv, clock: Clock, exec?: AgentTool, secrets: Record<string, string> = {}, media?: MediaStore): AgentTool[] {
  const web = env.config.agent.tools?.web;
  const search = web?.search ? [webSearchFor(web.search, secrets, clock)] : [];
  return [
    ...fileTools(env.workspace),
    ...(exec ? [exec] : []),
    ...memoryTools(env.workspace),
    ...requestTools(env.agentId, clock),
    webFetchTool({ allowPrivateHosts: web?.fetch?.allowPrivateHosts }),
    ...search,
    ...(media ? [sendFileTool(env.agentId, env.workspace, media, clock)] : []),
  ];
}

type SearchConfig = NonNullable<NonNullable<NonNullable<RuntimeEnv['config']['agent']['tools']>['web']>['search']>;

function webSearchFor(search: SearchConfig, secrets: Record<string, string>, clock: Clock): AgentTool {
  const keyName = searchKeyName(search);
  return webSearchTool({
    provider: search.provider ?? 'brave',
    // checkSecrets has made sure the value is there before any tool is built.
    apiKey: secrets[keyName] ?? '',
    baseUrl: search.baseUrl,
    maxResults: search.maxResults,
    cacheTtlMs: (search.cacheTtlMinutes ?? 5) * 60_000,
    clock,
  });
}

/**
 * The sandbox (being looked for since `choosing` started, see sandbox-at-start.ts) and what
 * follows from it: exec, and the warnings the operator must see: exec off for want of a
 * sandbox, exec unsandboxed, an MCP server not started.
 */
async function sandboxFor(
  env: RuntimeEnv,
  choosing: Promise<SandboxChoice | undefined>,
  secrets: Record<string, string>,
): Promise<{ choice: SandboxChoice | undefined; exec: AgentTool | undefined; warnings: string[] }> {
  const agent = env.config.agent;
  const choice = await choosing;
  const exec = execWanted(agent) ? execSetup(agent.tools?.exec, choice, env.workspace, undefined, secrets) : {};
  const warnings = [
    ...(exec.warning ? [exec.warning] : []),
    ...(choice?.sandbox
      ? []
      : sandboxedServers(agent).map((id) => `MCP server "${id}" is not started: its config asks for a sandbox and none is available (${choice?.unavailable})`)),
  ];
  return { choice, exec: exec.tool, warnings };
}

export async function startAgentRuntime(parts: RuntimeParts): Promise<AgentRuntime> {
  const { env, log, clock, outbox } = parts;
  const agent = env.config.agent;
  checkOwnSecretId(env.config, env.secretId);
  // Read while the runtime waits for its secret; a failure is reported where it is awaited.
  const fleetSkillsBundle = env.fleetSkills ? undefined : parts.fleetSkillsBundle?.();
  fleetSkillsBundle?.catch(() => {});
  // Fresh from the first moment: a runtime waiting for its secret is alive, and must not be replaced.
  const healthTimer = env.healthFile ? keepHealthFile(env.healthFile) : undefined;
  let secrets: Record<string, string>;
  try {
    secrets = await awaitAgentSecrets(parts, { modelKeys: !env.offlineModel && !parts.model });
  } catch (err) {
    clearInterval(healthTimer);
    throw err;
  }

  const seeded = seedWorkspace(env.workspace);
  if (seeded.length > 0) log.info('workspace seeded from the template', { files: seeded });
  if (env.fleetSkills) installFleetSkills(env.fleetSkills, env.workspace, log);
  const skillsWarning = fleetSkillsBundle ? await installFleetSkillsBundle(fleetSkillsBundle, env, log) : undefined;

  const modelOptions = {
    contextWindow: env.contextTokens,
    retry: { attemptsPerModel: 3, baseDelayMs: env.modelRetryBaseMs, maxDelayMs: 10_000 },
    onFailure: (a: ModelAttempt) => log.warn('model call failed', { ...a }),
    // A configured model (not a test's, not the offline stand-in) of an agent with a budget is metered.
    meter: parts.model || env.offlineModel ? undefined : spendMeter(parts, env),
  };
  const model = parts.model ?? (env.offlineModel ? offlineModel(env.offlineModel) : modelForAgent(env.config, secrets, env.secretId, modelOptions));
  // /model: a session may put another of the agent's configured models first (built once per choice).
  const chosen = new Map<string, ModelClient>();
  const models =
    parts.model || env.offlineModel
      ? undefined
      : {
          refs: modelRefs(env.config),
          forRef: (ref: string) => chosen.get(ref) ?? chosen.set(ref, modelForAgent(env.config, secrets, env.secretId, modelOptions, ref)).get(ref)!,
        };

  const allowed = toolAllowed(agent.tools);
  const sandboxing = await sandboxFor(env, parts.sandbox ?? chooseSandboxAtStart(env), secrets);
  if (skillsWarning) sandboxing.warnings.push(skillsWarning);
  if (sandboxing.choice?.sandbox) log.info('sandbox for code the agent chooses', { sandbox: sandboxing.choice.sandbox.description });
  // Loud: an operator must notice exec running unsandboxed, or missing for want of a sandbox.
  for (const warning of sandboxing.warnings) log.warn(warning);
  // A screenshot can go to the chat in the browser's own call where send_file is offered.
  const sendFile = parts.media && allowed('send_file') ? sendFileTool(env.agentId, env.workspace, parts.media, clock) : undefined;
  const browsing = allowed('browser')
    ? await browserFor(env, sandboxing.choice, clock, log, { env: parts.browserEnv, idleMs: parts.browserIdleMs }, sendFile)
    : {};
  if (browsing.warning) {
    sandboxing.warnings.push(browsing.warning);
    log.warn(browsing.warning);
  }
  const builtins = [...builtinTools(env, clock, sandboxing.exec, secrets, parts.media), ...(browsing.tool ? [browsing.tool] : [])].filter((t) =>
    allowed(t.name),
  );
  const servers = agent.mcp?.servers ?? {};
  // The MCP host (and the SDK behind it) is loaded only by an agent that has servers.
  const mcp =
    Object.keys(servers).length > 0
      ? new (await import('../mcp/mcp-host.ts')).McpHost(servers, {
          workspace: env.workspace,
          runtimeState: env.runtimeState,
          secrets,
          log,
          sandbox: sandboxing.choice,
        })
      : undefined;
  await mcp?.start();
  const tools = () => [...builtins, ...(mcp?.tools() ?? []).filter((t) => allowed(t.name))];

  // The same decision `clawfleet skills list` makes (shared/config/skill-tools.ts).
  const skillTools = skillAccess({ read: allowed('read'), exec: builtins.some((t) => t.name === 'exec'), execEnv: agent.tools?.exec?.env });
  const transcripts = new TranscriptStore(env.workspace);
  // The runtime's own token to the local control plane is a secret of this agent too.
  const masker = secretMasker([...Object.values(secrets), ...(env.transport.kind === 'local' ? [env.transport.token] : [])]);
  // Spoken replies (#31): the voice is kept in the media store, so an agent without one answers in text (and says why, once).
  if (agent.tts && !parts.media) {
    const warning = 'spoken replies (tts) are off: this runtime has no media store to keep a voice message in';
    sandboxing.warnings.push(warning);
    log.warn(warning);
  }
  const speech =
    agent.tts && parts.media
      ? speaker({
          agentId: env.agentId,
          tts: agent.tts,
          apiKey: agent.tts.apiKeySecret ? secrets[agent.tts.apiKeySecret] : undefined,
          store: parts.media,
          masker,
          log,
        })
      : undefined;
  const turnDeps = {
    agentId: env.agentId,
    agentName: agent.name ?? agent.id,
    workspace: env.workspace,
    transcripts,
    model,
    models,
    outbox,
    clock,
    log,
    tools,
    skills: skillTools.offered ? agentSkills(env.workspace, agent.skills, pathHost(undefined, undefined, skillTools.env), log) : undefined,
    masker,
    limits: { ...defaultTurnLimits, turnTimeoutMs: env.turnTimeoutMs, compactAtTokens: env.compactAtTokens },
    media: {
      agentId: env.agentId,
      workspace: env.workspace,
      store: parts.media,
      transcribe: transcriberFor(env.config, secrets),
      echoTranscript: agent.tools?.media?.audio?.echoTranscript,
    },
    speech,
  };

  let stopping: Promise<void> | undefined;
  const stop = (drainMs = env.drainMs) =>
    (stopping ??= (async () => {
      heartbeats.stop();
      clearInterval(healthTimer);
      await worker.stop(drainMs);
      await Promise.all([mcp?.stop(), browsing.browser?.stop()]);
    })());

  const control = async (action: Exclude<ControlAction, 'cancel'>) => {
    if (action === 'reload') {
      await mcp?.restart();
      log.info('reloaded', { mcp: mcp?.status() });
      return;
    }
    // drain: the worker stopped polling when it saw the envelope; finish the rest and leave.
    void stop().then(
      () => parts.exit(0),
      () => parts.exit(1),
    );
  };

  const worker = runtimeWorker(parts, {
    handle: (envelope, signal, cancel) => runTurn(turnRequestFor(envelope), turnDeps, signal, cancel),
    giveUp: (envelope, attempts) => giveUpTurn(turnRequestFor(envelope), turnDeps, attempts),
    control,
    stop,
  });

  // Announce: version and capabilities, then a heartbeat every so often. The announcement and
  // the first poll go out together, one round trip rather than two (an SQS send on AWS); the
  // start returns, and says ready, once the announcement is sent.
  const heartbeats = startHeartbeats(
    { agentId: env.agentId, outbox, clock, log, heartbeatMs: env.heartbeatMs },
    {
      capabilities: [...tools().map((t) => `tool:${t.name}`), ...Object.keys(servers).map((s) => `mcp:${s}`), `model:${model.label}`].slice(0, 512),
      inFlight: () => worker.busy,
      warnings: () => sandboxing.warnings,
      mcp: mcp && (() => mcpReport(mcp)),
    },
  );
  worker.start();
  await heartbeats.announced;
  log.info('ready', {
    version: RUNTIME_VERSION,
    model: model.label,
    transport: env.transport.kind,
    workspace: env.workspace,
    tools: tools().length,
    mcp: mcp?.status(),
    sandbox: sandboxing.choice?.sandbox?.kind ?? 'none',
  });
  // What the first turn would otherwise wait for is done just after ready: the provider
  // modules loaded, each built-in tool's JSON Schema worked out (tool.ts).
  if (!parts.model && !env.offlineModel) for (const api of providerApis(env.config)) void preloadProvider(api);
  setImmediate(() => {
    for (const tool of builtins) void tool.parameters;
  });

  return { mcp, worker, tools, stop };
}

/**
 * The browser, for an agent whose config enables it: only inside the sandbox exec uses
 * (Chromium runs with its own sandbox off: docs/security.md), and only where Chromium is.
 * What is missing is a warning the operator sees, and the tool is not offered.
 */
async function browserFor(
  env: RuntimeEnv,
  choice: SandboxChoice | undefined,
  clock: Clock,
  log: Logger,
  test: { env?: Record<string, string> | undefined; idleMs?: number | undefined },
  sendFile?: AgentTool,
): Promise<{ tool?: AgentTool; browser?: AgentBrowser; warning?: string }> {
  const config = env.config.agent.tools?.browser;
  if (!config?.enabled) return {};
  // Loaded only by an agent with a browser (playwright-core itself only at the first call).
  const [{ AgentBrowser }, { browserTool }, { findBrowserInstall }] = await Promise.all([
    import('../browser/agent-browser.ts'),
    import('../browser/browser-tool.ts'),
    import('../browser/browser-install.ts'),
  ]);
  if (!choice?.sandbox || choice.sandbox.kind === 'none') {
    return { warning: `browser is off: it runs only inside a sandbox, and none is available (${choice?.unavailable ?? 'none was looked for'})` };
  }
  const install = findBrowserInstall(config.executablePath);
  if ('missing' in install) return { warning: `browser is off: ${install.missing}` };
  const executablePath = install.executablePath;
  const policy = fetchPolicy(env.config.agent.tools?.web?.fetch?.allowPrivateHosts);
  const browser = new AgentBrowser({
    executablePath,
    env: test.env,
    workspace: env.workspace,
    runtimeState: env.runtimeState,
    sandbox: choice.sandbox,
    policy,
    idleMs: test.idleMs ?? (config.idleMinutes ?? 5) * 60_000,
    log,
  });
  return { browser, tool: browserTool({ browser, workspace: env.workspace, policy, clock, sendFile }) };
}

/** The fleet's skills copied into the workspace; a failure is logged and the agent starts without them. */
function installFleetSkills(from: string, workspace: string, log: Logger): void {
  try {
    const copy = copyFleetSkills(from, workspace);
    log.info('fleet skills copied into the workspace', { from, to: FLEET_SKILLS_DIR, files: copy.files });
    if (copy.skipped.length > 0) log.warn('fleet skill files not copied', { skipped: copy.skipped.slice(0, 20) });
  } catch (err) {
    log.warn('fleet skills not copied; the agent has its own skills only', { from, ...errorFields(err) });
  }
}

/**
 * AWS: the bundle of fleet skills read from S3, unpacked into the runtime's own state and
 * copied into the workspace as local mode copies the fleet's folder. A failure is a warning
 * the operator sees (log and heartbeat); the agent starts with its own skills only.
 */
async function installFleetSkillsBundle(bundle: Promise<Uint8Array>, env: RuntimeEnv, log: Logger): Promise<string | undefined> {
  const where = env.fleetSkillsObject ? `s3://${env.fleetSkillsObject.bucket}/${env.fleetSkillsObject.key}` : 'its bundle';
  try {
    const dir = join(env.runtimeState, FLEET_SKILLS_DIR);
    const unpacked = unpackFleetSkills(await bundle, dir);
    log.info('fleet skills read', { from: where, files: unpacked.files });
  } catch (err) {
    log.warn('fleet skills not read; the agent has its own skills only', { from: where, ...errorFields(err) });
    return `fleet skills not read from ${where}; the agent has its own skills only (${(err as Error).message.slice(0, 200)})`;
  }
  installFleetSkills(join(env.runtimeState, FLEET_SKILLS_DIR), env.workspace, log);
  return undefined;
}

/**
 * A metered agent's meter (#31): its caps and prices from its config, its own ledger. Undefined
 * for an agent without a budget; an agent with one and no ledger does not start (fail closed).
 */
function spendMeter(parts: Pick<RuntimeParts, 'spendLedger' | 'outbox' | 'clock' | 'log'>, env: RuntimeEnv): SpendMeter | undefined {
  const agent = env.config.agent;
  const caps = capsOf(agent.budget);
  if (!caps) return undefined;
  if (!parts.spendLedger) {
    throw new ClawfleetError(
      'SPEND_LEDGER_MISSING',
      `agent "${agent.id}" has a budget but this runtime was given no spend ledger (on AWS: CLAWFLEET_SPEND_TABLE, set by the CDK app); redeploy the agent's stack`,
    );
  }
  return {
    agent: { id: agent.id, name: agent.name },
    caps,
    prices: env.config.prices ?? {},
    ledger: parts.spendLedger,
    outbox: parts.outbox,
    clock: parts.clock,
    log: parts.log,
    // A hold outlives its call's longest turn, then lapses (the runtime died mid-call).
    holdMs: env.turnTimeoutMs + 30_000,
  };
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
