// The audit's checks of the fleet config alone: pure, so they read the same locally and
// for a deployed fleet. Each names a setting that lets someone reach what they should not,
// or that weakens a guard, with the config path and the fix.
import { resolveAgent } from '../../shared/config/resolve.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { DEFAULT_RELAY_RATE_LIMIT } from '../../shared/control/relay.ts';
import { hookSessionPolicy } from '../../shared/hooks/hook-session.ts';
import { route } from '../../shared/routing/route.ts';
import { toolAllowed } from '../../shared/tools/tool-policy.ts';
import { quotedList, together, type Finding, type Severity } from './findings.ts';

/** Programs that run other programs: allowlisting one allows everything. */
const RUNS_ANYTHING = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'fish',
  'busybox',
  'env',
  'xargs',
  'find',
  'nohup',
  'setsid',
  'timeout',
  'nice',
  'sudo',
  'su',
  'doas',
  'make',
  'awk',
  'gawk',
  'perl',
  'python',
  'python3',
  'node',
  'npx',
  'npm',
  'ruby',
  'php',
  'lua',
  'tclsh',
  'ssh',
  'git',
]);
const LOOPBACK_HOSTS = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\]|\[::ffff:127(\.\d{1,3}){3}\]|0\.0\.0\.0)$/i;

export function auditConfig(config: FleetConfig): Finding[] {
  return [...dmFindings(config), ...groupFindings(config), ...agentFindings(config), ...hookFindings(config), ...relayFindings(config)];
}

/** Who may write to each bot directly, and whether they share one conversation. */
function dmFindings(config: FleetConfig): Finding[] {
  const telegram = config.channels.telegram;
  if (!telegram) return [];
  const out: Finding[] = [];
  const shared: { name: string; hit: { severity: Severity; why: string; pairing: boolean; agentId: string } }[] = [];
  const dmScope = config.session?.dmScope ?? 'main';
  for (const [accountId, account] of Object.entries(telegram.accounts)) {
    const where = `channels.telegram.accounts.${accountId}`;
    const policy = account.dmPolicy ?? telegram.dmPolicy;
    const allowFrom = account.allowFrom ?? telegram.allowFrom ?? [];
    const agentId = route(config, { channel: 'telegram', accountId, kind: 'direct', id: '0' }).agentId;
    if (policy === 'open') {
      out.push({
        id: 'dm.open',
        severity: 'high',
        where: account.dmPolicy ? `${where}.dmPolicy` : 'channels.telegram.dmPolicy',
        title: `Anyone on Telegram can talk to agent "${agentId}" through bot "${accountId}"`,
        detail:
          'dmPolicy "open" lets every Telegram user start turns: they spend its model budget and use its tools (exec, web_fetch, files, its MCP servers) with whatever those can reach.',
        fix: 'use dmPolicy "pairing" (you approve each person) or "allowlist" with allowFrom',
      });
    }
    const senders = policy === 'disabled' ? 0 : policy === 'open' || policy === 'pairing' || allowFrom.includes('*') ? Infinity : new Set(allowFrom).size;
    if (dmScope === 'main' && senders > 1) {
      // Pairing admits only people the owner approves: sharing is then a choice, if a hidden one.
      const pairing = policy === 'pairing' && !allowFrom.includes('*');
      const why = senders === Infinity ? `dmPolicy "${policy}" admits more than one person` : `allowFrom lists ${senders} people`;
      shared.push({ name: accountId, hit: { severity: pairing ? 'warn' : 'high', why, pairing, agentId } });
    }
  }
  // One setting (session.dmScope) for every bot: one finding per reason, naming the bots.
  out.push(
    ...together(
      shared,
      (h) => `${h.severity} ${h.why}`,
      (bots, h) => ({
        id: 'dm.shared-session',
        severity: h.severity,
        where: 'session.dmScope',
        title:
          bots.length === 1
            ? `Everyone who writes to bot "${bots[0]}" shares agent "${h.agentId}"'s one conversation`
            : `Everyone who writes to one of the bots ${quotedList(bots, 'or')} shares that bot's one conversation with the others`,
        detail:
          `session.dmScope is "main" and ${h.why}: ` +
          'they share one transcript, so what one person told the agent (and what it answered) is in the context of the next person’s turn. Replies still reach only their own sender.',
        byDesign: h.pairing
          ? 'each bot is one person’s agent: pairing lets in only the people you approve (clawfleet pairing approve), and a bot with one approved person shares nothing. Approve a second person only after the fix'
          : undefined,
        fix: 'set session.dmScope to "per-channel-peer" (a session per person), or allow one person only',
      }),
    ),
  );
  return out;
}

function groupFindings(config: FleetConfig): Finding[] {
  const groups = config.channels.telegram?.groups ?? {};
  const out: Finding[] = [];
  for (const [chatId, group] of Object.entries(groups)) {
    if (chatId !== '*' || group.allowFrom?.length) continue;
    const noMention = group.requireMention === false;
    out.push({
      id: 'groups.any',
      severity: noMention ? 'high' : 'warn',
      where: 'channels.telegram.groups["*"]',
      title: noMention ? 'Any group the bots are added to gets every message answered' : 'The agents answer in any group the bots are added to',
      detail: `"*" enables every group chat, and anyone in it may ${noMention ? 'start turns without even mentioning the bot' : 'start turns by mentioning the bot'}.`,
      fix: 'list the group chat ids you use instead of "*", or give "*" an allowFrom',
    });
  }
  return out;
}

/** Each agent's tools: exec, MCP servers and web_fetch's allowlist. */
function agentFindings(config: FleetConfig): Finding[] {
  const out: Finding[] = [];
  // Hits that name only their agent: each kind becomes one finding naming every agent it concerns.
  const unsandboxed: { name: string; hit: null }[] = [];
  const network: { name: string; hit: null }[] = [];
  const browsing: { name: string; hit: null }[] = [];
  for (const { id } of config.agents.list) {
    const agent = resolveAgent(config, id);
    const where = `agents.list[${id}]`;
    const allowed = toolAllowed(agent.tools);
    const exec = agent.tools?.exec;
    const execOn = allowed('exec') && (exec?.security ?? 'full') !== 'deny';
    if (execOn && exec?.sandbox === 'off') unsandboxed.push({ name: id, hit: null });
    const wide = exec?.security === 'allowlist' ? (exec.allowlist ?? []).filter((p) => RUNS_ANYTHING.has(p.split('/').pop()!)) : [];
    if (execOn && wide.length > 0) {
      out.push({
        id: 'exec.allowlist-runs-anything',
        severity: 'warn',
        where: `${where}.tools.exec.allowlist`,
        title: `Agent "${id}"'s exec allowlist holds programs that run any other program`,
        detail: `${wide.join(', ')} can start anything, so the allowlist allows everything the sandbox allows.`,
        fix: 'list only the programs the agent needs, none that run others',
      });
    }
    if (execOn && exec?.sandbox !== 'off' && (exec?.network ?? true)) network.push({ name: id, hit: null });
    // An openclaw agent's servers are started by its gateway, where `sandbox: true` is refused (shared/config/load.ts).
    const onOpenclaw = agent.runtime.kind === 'openclaw';
    for (const [server, spec] of Object.entries(agent.mcp?.servers ?? {})) {
      // The server runs whatever its tools' policy: a denied tool only hides it from the model.
      if (!('command' in spec) || spec.sandbox === true) continue;
      out.push({
        id: 'mcp.unsandboxed',
        severity: 'warn',
        where: `${where}.mcp.servers.${server}`,
        title: `Agent "${id}"'s MCP server "${server}" runs outside the sandbox`,
        detail: onOpenclaw
          ? 'OpenClaw starts it as its gateway’s own user. If what it processes can steer it (web pages, mail), it can read the gateway’s config: ' +
            'this agent’s model keys and MCP values, and the gateway’s token. Not the task role’s credentials, which stay the runtime’s.'
          : 'A stdio MCP server runs as the runtime’s own user. If what it processes can steer it (web pages, mail), it can read the runtime’s environment: ' +
            'on AWS the task role’s credentials (the agent’s whole secret), locally the state directory.',
        fix: onOpenclaw
          ? 'runtime.kind "openclaw" cannot sandbox it: run only servers you trust with what they process, or keep the agent on runtime.kind "native" and set sandbox true'
          : `set mcp.servers.${server}.sandbox true`,
      });
    }
    const execSecrets = Object.keys(exec?.env ?? {});
    if (execOn && execSecrets.length > 0) {
      out.push({
        id: 'exec.secrets',
        severity: 'warn',
        where: `${where}.tools.exec.env`,
        title: `Agent "${id}"'s commands get values of its secret`,
        detail: `${execSecrets.join(', ')} reach every exec command (for skills' scripts): a prompt-injected command can read them and send them wherever the network reaches; the mask hides only the values as printed.`,
        fix: 'name only the values a skill needs, with keys scoped to what it does',
      });
    }
    if (allowed('browser') && agent.tools?.browser?.enabled) browsing.push({ name: id, hit: null });
    const loopback = (agent.tools?.web?.fetch?.allowPrivateHosts ?? []).filter((h) => LOOPBACK_HOSTS.test(h));
    if ((allowed('web_fetch') || (allowed('browser') && agent.tools?.browser?.enabled)) && loopback.length > 0) {
      out.push({
        id: 'web.loopback-allowed',
        severity: 'high',
        where: `${where}.tools.web.fetch.allowPrivateHosts`,
        title: `Agent "${id}"'s web_fetch (and browser) may reach this machine itself`,
        detail: `${loopback.join(', ')} lets a prompt-injected fetch reach every service on the agent’s machine (locally: the control plane and whatever else listens on loopback).`,
        fix: 'list intranet host names only, never loopback',
      });
    }
  }
  const agents = (ids: string[]) => `agents.list[${ids.join(', ')}]`;
  const who = (ids: string[], one: string, many: string) => (ids.length === 1 ? `Agent "${ids[0]}"${one}` : `Agents ${quotedList(ids)}${many}`);
  const same = () => '';
  out.push(
    ...together(unsandboxed, same, (ids) => ({
      id: 'exec.unsandboxed',
      severity: 'high',
      where: `${agents(ids)}.tools.exec.sandbox`,
      title: `${who(ids, ' runs', ' run')} commands outside any sandbox`,
      detail:
        'With tools.exec.sandbox "off", exec runs as the runtime itself: a prompt-injected turn can read the runtime’s memory and environment, ' +
        'locally the state directory (every agent’s transcripts, the admin and dashboard tokens) and the secrets file, and on AWS the task role’s credentials.',
      fix: 'remove tools.exec.sandbox (the default "required" runs exec only in bubblewrap or a tool uid), or deny exec',
    })),
    ...together(network, same, (ids) => ({
      id: 'exec.network',
      severity: 'info',
      where: `${agents(ids)}.tools.exec.network`,
      title: `${who(ids, "'s commands reach", ': their commands reach')} the network`,
      detail: 'Sandboxed commands share the host’s network (locally: services on loopback too). web_fetch’s address guard does not apply to them.',
      byDesign: 'the default, since commands install packages and call APIs; turn it off for each agent whose commands need no network',
      fix: 'set tools.exec.network false where the agent needs no network from its commands (needs bubblewrap)',
    })),
    ...together(browsing, same, (ids) => ({
      id: 'browser.enabled',
      severity: 'info',
      where: `${agents(ids)}.tools.browser`,
      title: `${who(ids, ' renders', ' render')} web pages in a browser`,
      detail:
        'Chromium runs without its own sandbox, inside the one exec uses; its requests pass the address guard, but a page that exploits the renderer ' +
        'gets what exec gets: the workspace and the host’s network. Its snapshots reach the model as untrusted content.',
      fix: 'enable tools.browser only for agents that need it',
    })),
  );
  return out;
}

function hookFindings(config: FleetConfig): Finding[] {
  if (!config.hooks) return [];
  const policy = hookSessionPolicy(config.hooks);
  if (!policy.allowRequestSessionKey) return [];
  // Prefixes match the part after agent:<id>:. One that lets a caller name a chat's session
  // (main, a Telegram DM or group) lets a hook talk into that chat.
  const chatty = policy.allowedPrefixes.filter(
    (p) => 'main'.startsWith(p) || 'telegram:'.startsWith(p) || 'dm:'.startsWith(p) || p.startsWith('main') || p.startsWith('telegram:') || p.startsWith('dm:'),
  );
  return [
    {
      id: 'hooks.caller-chooses-session',
      severity: chatty.length > 0 ? 'high' : 'warn',
      where: 'hooks.allowRequestSessionKey',
      title: chatty.length > 0 ? 'A hook caller may steer messages into the agents’ chats' : 'Hook callers choose the session their message lands in',
      detail:
        chatty.length > 0
          ? `hooks.allowedSessionKeyPrefixes (${chatty.map((p) => JSON.stringify(p)).join(', ')}) admits a chat’s session: whoever holds the hooks token speaks into that conversation, and its answer goes to that chat.`
          : `Callers holding the hooks token may name any session under ${policy.allowedPrefixes.map((p) => JSON.stringify(p)).join(', ')}.`,
      fix: 'keep hooks.allowRequestSessionKey false, or limit hooks.allowedSessionKeyPrefixes to "hook:"',
    },
  ];
}

function relayFindings(config: FleetConfig): Finding[] {
  const a2a = config.agentToAgent;
  if (!a2a || a2a.allow.length === 0) return [];
  const out: Finding[] = [];
  const rate = a2a.rateLimit ?? DEFAULT_RELAY_RATE_LIMIT;
  const perHour = (rate.max * 60) / rate.perMinutes;
  const defaultPerHour = (DEFAULT_RELAY_RATE_LIMIT.max * 60) / DEFAULT_RELAY_RATE_LIMIT.perMinutes;
  if (perHour > defaultPerHour * 5) {
    out.push({
      id: 'relay.rate-high',
      severity: 'warn',
      where: 'agentToAgent.rateLimit',
      title: 'Agents may message each other very often',
      detail: `${rate.max} messages per ${rate.perMinutes} minutes per pair (${Math.round(perHour)} an hour): a prompt-injected agent can spend another agent’s model budget that fast.`,
      fix: `keep it near the default, ${DEFAULT_RELAY_RATE_LIMIT.max} per ${DEFAULT_RELAY_RATE_LIMIT.perMinutes} minutes`,
    });
  }
  const pairs = new Set(a2a.allow.map((p) => `${p.from}>${p.to}`));
  for (const p of a2a.allow) {
    if (p.from < p.to && pairs.has(`${p.to}>${p.from}`)) {
      out.push({
        id: 'relay.both-ways',
        severity: 'info',
        where: 'agentToAgent.allow',
        title: `Agents "${p.from}" and "${p.to}" may start conversations with each other`,
        detail: `Each may ask the other; a conversation stops after agentToAgent.maxHops (${a2a.maxHops}) hops, and each pair after ${rate.max} messages per ${rate.perMinutes} minutes.`,
      });
    }
  }
  return out;
}
