// One agent: its state and the controls, the 24 h charts, recent turns with where their
// time went, sessions, cron jobs, MCP servers, pending pairings, and its workspace's size
// and last push or pull. In local mode the chat box (chat-box.ts) comes right under the
// head, where a laptop's or a phone's first screen shows it, between the two live parts,
// so a refresh never interrupts typing.
import type { TurnEvent } from '../../ports.ts';
import type { AgentDetail, WorkspaceView } from '../view.ts';
import { formatBytes } from '../../format-bytes.ts';
import { activityChart, queueChart } from './charts.ts';
import { ago, duration, isoTime, profileLabel, spendLabel, until } from './format.ts';
import { html, type Html } from './html.ts';
import { livePart } from './layout.ts';
import { actionButtons, pairingList, stateBadge, WARNING_MARK } from './overview.ts';

const ms = (v: number | undefined) => (v === undefined ? '—' : duration(v));

function timingBar(t: TurnEvent['timing']): Html {
  if (!t) return html`<span class="muted">not reported</span>`;
  const parts = [
    ['wait', t.queueWaitMs],
    ['model', t.modelMs],
    ['tools', t.toolMs],
  ] as const;
  const total = parts.reduce((s, [, v]) => s + (v ?? 0), 0) || 1;
  return html`<span class="tbar" title="queue wait ${ms(t.queueWaitMs)} · model ${ms(t.modelMs)} · tools ${ms(t.toolMs)}">${parts.map(([k, v]) =>
    v ? html`<span class="seg seg-${k} w${Math.max(1, Math.round((v / total) * 20))}"></span>` : '',
  )}</span>`;
}

function turnsTable(d: AgentDetail): Html {
  if (!d.turns.length) return html`<p class="muted">No finished turns in the last 24 h.</p>`;
  return html`<table class="list"><thead><tr><th>when</th><th>session</th><th>outcome</th><th class="num">queue wait</th><th class="num">model</th><th class="num">tools</th><th>split</th></tr></thead><tbody>${d.turns.map(
    (t) =>
      html`<tr><td title="${isoTime(t.at)}">${ago(t.at, d.now)}</td><td><code>${t.sessionKey ?? '—'}</code></td><td class="${t.outcome === 'failed' ? 'bad' : 'good'}" title="${t.error ?? ''}">${t.outcome === 'failed' ? `failed${t.error ? `: ${t.error}` : ''}` : 'answered'}</td><td class="num">${ms(t.timing?.queueWaitMs)}</td><td class="num">${ms(t.timing?.modelMs)}</td><td class="num">${ms(t.timing?.toolMs)}</td><td>${timingBar(t.timing)}</td></tr>`,
  )}</tbody></table>`;
}

/** The key to the split bars, only when some turn has one to explain. */
function splitLegend(d: AgentDetail): Html {
  const drawn = d.turns.some((t) => t.timing && (t.timing.queueWaitMs || t.timing.modelMs || t.timing.toolMs));
  if (!drawn) return html``;
  return html`<p class="legend"><span class="seg seg-wait"></span>queue wait <span class="seg seg-model"></span>model <span class="seg seg-tools"></span>tools</p>`;
}

/** "1.2 MiB in 34 files · last pushed 3h ago", saying when a size is the last transfer's rather than now. */
function workspaceFacts(w: WorkspaceView, now: number): Html {
  const size = w.size
    ? `${w.size.complete ? '' : 'at least '}${formatBytes(w.size.bytes)} in ${w.size.files} file${w.size.files === 1 ? '' : 's'}${w.size.asOf === 'last-sync' ? ' (at the last push/pull)' : ''}`
    : 'empty';
  const last = w.lastSync
    ? html` · last ${w.lastSync.direction === 'push' ? 'pushed' : 'pulled'} <span title="${isoTime(w.lastSync.at)}${w.lastSync.where ? ` (${w.lastSync.direction === 'push' ? 'from' : 'to'} ${w.lastSync.where})` : ''}">${ago(w.lastSync.at, now)}</span>`
    : html` · <span class="muted">never pushed or pulled</span>`;
  return html`<span class="workspace">${size}${last}</span>`;
}

function facts(d: AgentDetail): Html {
  const a = d.agent;
  const row = (k: string, v: Html | string) => html`<dt>${k}</dt><dd>${v}</dd>`;
  return html`<dl class="facts">
${row('state', html`${stateBadge(a, d.now)}${a.detail ? html` <small>${a.detail}</small>` : ''}`)}
${row('model', `${a.model ?? '—'}${a.fallbacks.length ? ` (then ${a.fallbacks.join(', ')})` : ''}`)}
${row('compute', profileLabel(a.profile))}
${a.spend ? row('spend', html`<span class="${a.spend.reached || a.spend.error ? 'warn' : ''}">${spendLabel(a.spend, d.now)}</span>`) : ''}
${row('heartbeat', html`<span title="${isoTime(a.lastHeartbeatAt)}">${ago(a.lastHeartbeatAt, d.now)}</span>${a.version ? html` · runtime ${a.version}` : ''}`)}
${row('last work', html`<span title="${isoTime(a.lastActivityAt)}">${ago(a.lastActivityAt, d.now)}</span>`)}
${row('queue', a.queue ? `${a.queue.depth} waiting · ${a.queue.dlq} in DLQ · ${a.queue.outboxDlq} refused replies` : `unreadable (${a.queueError ?? 'error'})`)}
${d.workspace ? row('workspace', workspaceFacts(d.workspace, d.now)) : ''}
${a.restarts ? row('restarts', String(a.restarts)) : ''}
${row('last error', a.lastError ? html`<span class="bad">${a.lastError}</span>` : html`<span class="muted">none</span>`)}
${a.warnings.length ? row('warnings', html`<ul class="warnings">${a.warnings.map((w) => html`<li class="warn">${WARNING_MARK} ${w}</li>`)}</ul>`) : ''}
</dl>`;
}

function sessionsTable(d: AgentDetail): Html {
  if (!d.sessions.length) return html`<p class="muted">No sessions yet.</p>`;
  return html`<table class="list"><thead><tr><th>session</th><th>channel</th><th>last activity</th></tr></thead><tbody>${d.sessions.map(
    (s) => html`<tr><td><code>${s.sessionKey}</code></td><td>${s.channel}</td><td title="${isoTime(s.updatedAt)}">${ago(s.updatedAt, d.now)}</td></tr>`,
  )}</tbody></table>`;
}

function cronTable(d: AgentDetail): Html {
  if (!d.cron.length) return html`<p class="muted">No cron jobs in the config.</p>`;
  return html`<table class="list"><thead><tr><th>job</th><th>schedule</th><th>next run</th><th>session</th><th>does</th></tr></thead><tbody>${d.cron.map(
    (j) =>
      html`<tr><td><code>${j.id}</code></td><td>${j.schedule}</td><td title="${isoTime(j.nextRunAt)}">${j.nextRunAt ? until(j.nextRunAt, d.now) : html`<span class="muted">${j.nextRunNote ?? '—'}</span>`}</td><td>${j.sessionTarget}</td><td class="clip">${j.payload}</td></tr>`,
  )}</tbody></table>`;
}

function mcpState(m: AgentDetail['mcp'][number]): Html {
  if (!m.live) return html`<span class="muted">not reported</span>`;
  const cls = m.live.state === 'ready' ? 'good' : m.live.state === 'starting' ? 'muted' : 'bad';
  return html`<span class="${cls}" title="${m.live.error ?? ''}">${m.live.state}${m.live.state === 'ready' ? ` · ${m.live.tools} tools` : ''}</span>`;
}

function mcpTable(d: AgentDetail): Html {
  if (!d.mcp.length) return html`<p class="muted">No MCP servers configured.</p>`;
  return html`<table class="list"><thead><tr><th>server</th><th>state</th><th>transport</th><th>runs</th><th>secrets it gets</th></tr></thead><tbody>${d.mcp.map(
    (m) =>
      html`<tr><td><code>${m.name}</code></td><td>${mcpState(m)}</td><td>${m.transport}</td><td class="clip"><code>${m.target}</code></td><td>${m.secrets.join(', ') || '—'}</td></tr>`,
  )}</tbody></table><p class="muted small">State as of the runtime's last heartbeat.</p>`;
}

function head(d: AgentDetail): Html {
  const a = d.agent;
  return html`<header class="agent-head r-${a.state}" data-agent="${a.id}" data-state="${a.state}"><h2>${a.name} <small>${a.id}</small></h2>${actionButtons(a)}</header>`;
}

function body(d: AgentDetail): Html {
  const a = d.agent;
  return html`<div class="grid">
<section class="card">${facts(d)}</section>
<section class="card charts"><h3>Turns, last 24 h</h3>${activityChart(a.activity, 'lg')}<div class="axis"><span>24 h ago</span><span>12 h</span><span>now</span></div>
<h3>Queue depth, last 24 h</h3>${queueChart(a.activity, 'lg')}<div class="axis"><span>24 h ago</span><span>12 h</span><span>now</span></div></section>
</div>
${pairingList(d.pairings, d.now)}
<section class="card"><h3>Recent turns</h3>${turnsTable(d)}${splitLegend(d)}</section>
<section class="card"><h3>Sessions</h3>${sessionsTable(d)}</section>
<section class="card"><h3>Cron jobs</h3>${cronTable(d)}</section>
<section class="card"><h3>MCP servers</h3>${mcpTable(d)}</section>`;
}

/** The live parts, as the page refreshes them. */
export function agentFragment(d: AgentDetail): Html {
  return html`${livePart('head', head(d))}${livePart('body', body(d))}`;
}

/** The whole page's content: the chat box, if any, between the head and the rest. */
export function agentPage(d: AgentDetail, chat: Html | undefined): Html {
  return html`${livePart('head', head(d))}${chat ?? ''}${livePart('body', body(d))}`;
}
