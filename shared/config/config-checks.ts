// Checking clawfleet.json: schema first, then the checks that span several keys. All problems
// are collected together, each with its JSON path, and put in words by the caller's choice of
// wording (load.ts loads it with the checks; load-lazily.ts only for a bad config).
import type { ConfigIssue } from '../errors.ts';
import type * as z from '../zod.ts';
import type { configIssues } from './issue-text.ts';
import type { jsonSyntaxProblem } from './json-syntax.ts';
import { ConfigSchema, type FleetConfig } from './schema.ts';
import { fargateSizeProblem, resolveAgent, type ResolvedAgent } from './resolve.ts';
import { gatewayUrlProblem } from './openclaw-gateway-url.ts';
import { topicAgentIssues } from './telegram-groups.ts';
import { DEFAULT_RUNTIME_KIND, kindSizeProblem } from './runtime-kinds.ts';
import { priceOf } from '../budget/prices.ts';

/** What is wrong with a config, before it is put in words. */
export type Unworded =
  | { kind: 'json'; body: string; error: Error }
  | { kind: 'schema'; issues: readonly z.core.$ZodIssue[]; input: unknown }
  | { kind: 'checks'; issues: ConfigIssue[] };

/** What puts a config's problems in words: issue-text.ts and json-syntax.ts. */
export interface Wording {
  configIssues: typeof configIssues;
  jsonSyntaxProblem: typeof jsonSyntaxProblem;
}

export type Checked = { ok: true; config: FleetConfig } | { ok: false; problem: Unworded };

export function checked(input: unknown): Checked {
  // The inputs ride along on the issues so the messages can say what was written.
  const parsed = ConfigSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return { ok: false, problem: { kind: 'schema', issues: parsed.error.issues, input } };
  const issues = crossChecks(parsed.data);
  return issues.length > 0 ? { ok: false, problem: { kind: 'checks', issues } } : { ok: true, config: parsed.data };
}

export function checkedText(text: string): Checked {
  // A byte-order mark some editors write is not JSON, but nor is it anything the user meant.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, problem: { kind: 'json', body, error: err as Error } };
  }
  return checked(json);
}

/** The problems as the user reads them (the schema's issues worded by issue-text.ts, a JSON syntax error located). */
export function worded(problem: Unworded, words: Wording): ConfigIssue[] {
  if (problem.kind === 'checks') return problem.issues;
  if (problem.kind === 'schema') return words.configIssues(problem.issues, ConfigSchema, problem.input);
  const syntax = words.jsonSyntaxProblem(problem.body);
  return [
    syntax
      ? { path: '', message: `not valid JSON: ${syntax.problem}`, at: { line: syntax.line, column: syntax.column, excerpt: syntax.excerpt } }
      : // JSON.parse's own text quotes the file, which may hold a pasted token: not repeated.
        { path: '', message: `not valid JSON (${problem.error.name})` },
  ];
}

function crossChecks(config: FleetConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const agents = config.agents.list;
  const agentIds = new Set<string>();
  agents.forEach((a, i) => {
    if (agentIds.has(a.id)) issues.push({ path: `agents.list[${i}].id`, message: `duplicate agent id "${a.id}"` });
    // Agent x's DLQ is named <fleet>-agent-x-dlq.fifo, which would be agent "x-dlq"'s queue.
    if (a.id.endsWith('-dlq')) issues.push({ path: `agents.list[${i}].id`, message: 'must not end in "-dlq" (that suffix names dead-letter queues)' });
    agentIds.add(a.id);
  });
  const defaults = agents.filter((a) => a.default);
  if (defaults.length > 1) {
    issues.push({ path: 'agents.list', message: `only one agent may be the default; found ${defaults.map((a) => a.id).join(', ')}` });
  }

  agents.forEach((agent, i) => {
    const at = `agents.list[${i}]`;
    const resolved = resolveAgent(config, agent.id);
    if (!resolved.model) {
      issues.push({ path: `${at}.model`, message: 'no model: set one here or in agents.defaults.model' });
    }
    for (const ref of resolved.model ? [resolved.model.primary, ...resolved.model.fallbacks] : []) {
      const provider = ref.slice(0, ref.indexOf('/'));
      if (!config.models.providers[provider]) {
        issues.push({ path: `${at}.model`, message: `model "${ref}" names provider "${provider}", which models.providers does not define` });
      }
    }
    const exec = resolved.tools?.exec;
    if (exec?.security === 'allowlist' && !exec.allowlist?.length) {
      issues.push({
        path: `${at}.tools.exec.allowlist`,
        message: 'needs at least one program when tools.exec.security is "allowlist" (here or in agents.defaults.tools.exec)',
      });
    }
    for (const [name, server] of Object.entries(agent.mcp?.servers ?? {})) {
      if ('url' in server && server.sandbox) {
        issues.push({
          path: `${at}.mcp.servers.${name}.sandbox`,
          message: 'applies to stdio servers (command) only: a url server does not run here, so there is nothing to sandbox',
        });
      }
    }
    const { cpus, memoryMb } = resolved.runtime;
    if (cpus === undefined || memoryMb === undefined) {
      issues.push({ path: `${at}.runtime`, message: 'needs cpus and memoryMb (here or in agents.defaults.runtime)' });
    } else {
      const problem = fargateSizeProblem(cpus, memoryMb) ?? kindSizeProblem(resolved.runtime, cpus, memoryMb);
      if (problem) issues.push({ path: `${at}.runtime`, message: problem });
    }
    issues.push(...runtimeKindIssues(config, resolved, `${at}.runtime`));
    issues.push(...budgetIssues(config, resolved, at));
  });
  issues.push(...sharedGatewayAgentIssues(config));

  const accounts = config.channels.telegram?.accounts ?? {};
  config.bindings.forEach((b, i) => {
    if (!agentIds.has(b.agentId)) issues.push({ path: `bindings[${i}].agentId`, message: `no agent "${b.agentId}"` });
    if (b.match.channel === 'telegram' && !config.channels.telegram) {
      issues.push({ path: `bindings[${i}].match.channel`, message: 'channels.telegram is not configured' });
    }
    if (b.match.accountId && !accounts[b.match.accountId]) {
      issues.push({ path: `bindings[${i}].match.accountId`, message: `no telegram account "${b.match.accountId}"` });
    }
  });

  issues.push(...topicAgentIssues(config, agentIds));

  config.cron?.jobs.forEach((job, i) => {
    if (!agentIds.has(job.agentId)) issues.push({ path: `cron.jobs[${i}].agentId`, message: `no agent "${job.agentId}"` });
  });
  Object.entries(config.hooks?.mappings ?? {}).forEach(([name, m]) => {
    if (!agentIds.has(m.agentId)) issues.push({ path: `hooks.mappings.${name}.agentId`, message: `no agent "${m.agentId}"` });
    if (name === 'agent' || name === 'wake')
      issues.push({ path: `hooks.mappings.${name}`, message: `"${name}" is a built-in hook (/hooks/${name}); choose another name` });
  });
  config.agentToAgent?.allow.forEach((pair, i) => {
    for (const side of ['from', 'to'] as const) {
      if (!agentIds.has(pair[side])) issues.push({ path: `agentToAgent.allow[${i}].${side}`, message: `no agent "${pair[side]}"` });
    }
  });
  issues.push(...operatorIssues(config));
  return issues;
}

/**
 * A budget is counted in dollars, so every model the agent may call (its primary and its
 * fallbacks; a photo goes to whichever of them the turn uses) needs a price; and it is kept by
 * the native runtime, which reports each call's usage: an openclaw gateway reports none yet.
 */
function budgetIssues(config: FleetConfig, agent: ResolvedAgent, at: string): ConfigIssue[] {
  if (!agent.budget || (agent.budget.dailyUsd === undefined && agent.budget.monthlyUsd === undefined)) return [];
  const issues: ConfigIssue[] = [];
  const where = agent.runtime.kind === 'openclaw' ? `${at}.runtime.kind` : undefined;
  if (where)
    issues.push({
      path: where,
      message:
        'runtime.kind "openclaw" does not report its model calls\' token usage, so a budget cannot be kept for it: remove budget (here or in agents.defaults), or keep the agent on runtime.kind "native"',
    });
  for (const ref of agent.model ? [agent.model.primary, ...agent.model.fallbacks] : []) {
    if (priceOf(ref, config.models.prices)) continue;
    issues.push({
      path: `${at}.model`,
      message: `model "${ref}" has no price, and this agent has a budget: add models.prices["${ref}"] = { "input": …, "output": … } (USD per million tokens; cacheRead and cacheWrite too if the provider bills them)`,
    });
  }
  return issues;
}

/** operator.telegram needs a bot of the fleet to write with: the one named, or the only one. */
function operatorIssues(config: FleetConfig): ConfigIssue[] {
  const chat = config.operator?.telegram;
  const accounts = Object.keys(config.channels.telegram?.accounts ?? {});
  const bot = chat?.accountId ?? (accounts.length === 1 ? accounts[0] : undefined);
  if (!chat || (bot !== undefined && accounts.includes(bot))) return [];
  return [
    {
      path: 'operator.telegram.accountId',
      message: `must name the bot that writes alerts, one of channels.telegram.accounts: ${accounts.join(', ') || 'none'}`,
    },
  ];
}

/** runtime.openclaw's options for its kind only; what the openclaw kind cannot do yet, refused here rather than at run time. */
function runtimeKindIssues(config: FleetConfig, agent: ResolvedAgent, at: string): ConfigIssue[] {
  const { kind = DEFAULT_RUNTIME_KIND, openclaw } = agent.runtime;
  if (kind !== 'openclaw') {
    return openclaw ? [{ path: `${at}.openclaw`, message: `applies to runtime.kind "openclaw" only (this agent's is "${kind}")` }] : [];
  }
  const issues: ConfigIssue[] = [];
  issues.push(...openclawModeIssues(openclaw, `${at}.openclaw`));
  issues.push(...openclawCarryIssues(agent, openclaw?.mode === 'external', at.replace(/\.runtime$/, '')));
  // An external gateway runs the operator's own models: the Bedrock limit is the managed gateway's.
  for (const ref of agent.model && openclaw?.mode !== 'external' ? [agent.model.primary, ...agent.model.fallbacks] : []) {
    const name = ref.slice(0, ref.indexOf('/'));
    if (config.models.providers[name]?.api === 'bedrock-converse') {
      issues.push({
        path: `${at}.model`,
        message: `model "${ref}" is served by Bedrock, which runtime.kind "openclaw" does not support yet (its gateway is given API keys, not an IAM role)`,
      });
    }
  }
  return issues;
}

/**
 * What an openclaw agent's config says that its gateway would not honour, refused rather than
 * dropped (docs/runtime.md, "What maps and what does not"): `tools.browser` is the native
 * runtime's browser tool, which no openclaw agent runs (and the openclaw image has no
 * Chromium); `tts` is the native turn's (the bridge sends text); an MCP server asked to run in clawfleet's sandbox would run unsandboxed as
 * OpenClaw starts it; and an operator's gateway (external mode) runs its own MCP servers,
 * so servers configured here would reach nothing.
 */
function openclawCarryIssues(agent: ResolvedAgent, external: boolean, at: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (agent.tools?.browser?.enabled) {
    issues.push({
      path: `${at}.tools.browser`,
      message:
        'is the native runtime\'s browser tool, which runtime.kind "openclaw" does not run (and the openclaw image carries no Chromium): turn it off for this agent, or keep it on runtime.kind "native" (docs/runtime.md, "What maps and what does not")',
    });
  }
  if (agent.tts) {
    issues.push({
      path: `${at}.tts`,
      message:
        'spoken replies are the native runtime\'s: the bridge to an OpenClaw gateway sends its answers as text (OpenClaw\'s own tts speaks through its channels, which are off here); remove it for this agent, or keep it on runtime.kind "native"',
    });
  }
  for (const [name, server] of Object.entries(agent.mcp?.servers ?? {})) {
    if (external) {
      issues.push({
        path: `${at}.mcp.servers.${name}`,
        message: 'runtime.openclaw.mode "external" answers with the operator\'s gateway, which runs its own MCP servers: configure this one there, not here',
      });
    } else if ('command' in server && server.sandbox) {
      issues.push({
        path: `${at}.mcp.servers.${name}.sandbox`,
        message:
          'runtime.kind "openclaw" cannot honour it: OpenClaw starts its MCP servers itself, outside clawfleet\'s sandbox for MCP servers (they share the gateway\'s: bubblewrap locally, its user on AWS); remove it, or keep the agent on runtime.kind "native"',
      });
    }
  }
  return issues;
}

/**
 * Two agents answered by the same agent of the same operator's gateway would share its
 * sessions (the session keys both send name that agent): one agent's users would see the
 * other's history. Each external agent needs a gateway agent of its own.
 */
function sharedGatewayAgentIssues(config: FleetConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Map<string, string>();
  config.agents.list.forEach((agent, i) => {
    const openclaw = resolveAgent(config, agent.id).runtime.openclaw;
    if (openclaw?.mode !== 'external' || !openclaw.url) return;
    let where: string;
    try {
      const url = new URL(openclaw.url);
      where = `${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return; // the URL's own issue says what is wrong with it
    }
    const gatewayAgent = openclaw.agent ?? agent.id;
    const key = `${where}#${gatewayAgent}`;
    const first = seen.get(key);
    if (first) {
      issues.push({
        path: `agents.list[${i}].runtime.openclaw.agent`,
        message: `agent "${first}" is already answered by gateway agent "${gatewayAgent}" at ${where}: the two would share its sessions; give each its own gateway agent`,
      });
    } else seen.set(key, agent.id);
  });
  return issues;
}

/** External mode needs a gateway URL that passes gatewayUrlProblem and a token secret; managed mode takes neither. */
function openclawModeIssues(openclaw: ResolvedAgent['runtime']['openclaw'], at: string): ConfigIssue[] {
  if (!openclaw) return [];
  const externalOnly = (['url', 'tokenSecret', 'agent', 'allowInsecureWs'] as const).filter((k) => openclaw[k] !== undefined);
  if (openclaw.mode !== 'external') {
    return externalOnly.map((k) => ({ path: `${at}.${k}`, message: 'applies to runtime.openclaw.mode "external" only' }));
  }
  const issues: ConfigIssue[] = [];
  if (openclaw.url === undefined) issues.push({ path: `${at}.url`, message: 'mode "external" needs the gateway\'s URL (wss://host:port)' });
  else {
    const problem = gatewayUrlProblem(openclaw.url, openclaw.allowInsecureWs);
    if (problem) issues.push({ path: `${at}.url`, message: problem });
  }
  if (openclaw.tokenSecret === undefined)
    issues.push({
      path: `${at}.tokenSecret`,
      message: 'mode "external" needs the name of the value in the agent\'s own secret that holds the gateway\'s token',
    });
  return issues;
}
