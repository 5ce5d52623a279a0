// The fleet overview: one line per agent, its state in colour first, so the fleet reads
// at a glance; then the numbers that explain it (queue, dead letters, heartbeat, errors).
import { AGENT_STATES } from '../fleet-view.ts';
import type { AgentSummary, FleetView, PairingView } from '../view.ts';
import { activityChart, queueChart } from './charts.ts';
import { ago, isoTime, profileLabel, spendLabel, STATE_LABEL, until } from './format.ts';
import { html, type Html } from './html.ts';
import { livePart } from './layout.ts';

export function stateBadge(a: Pick<AgentSummary, 'state' | 'stateSince'>, now: number): Html {
  return html`<span class="state s-${a.state}" title="${a.stateSince ? `${STATE_LABEL[a.state]} since ${isoTime(a.stateSince)}` : STATE_LABEL[a.state]}"><i></i>${STATE_LABEL[a.state]}</span>${
    a.stateSince ? html`<small class="since">${ago(a.stateSince, now).replace(' ago', '')}</small>` : ''
  }`;
}

export function actionButtons(a: AgentSummary): Html {
  return html`<span class="actions">${a.actions.map((action) => html`<button type="button" class="act act-${action}" data-action="${action}" data-agent="${a.id}" data-name="${a.name}">${action}</button>`)}</span>`;
}

function queueCell(a: AgentSummary): Html {
  if (!a.queue)
    return html`<td class="num q warn" title="${a.queueError ?? ''}" data-label="queue">?</td><td class="num dlq warn" data-label="dead letters">?</td>`;
  const dead = a.queue.dlq + a.queue.outboxDlq;
  return html`<td class="num q${a.queue.depth ? ' busy' : ''}" data-label="queue">${a.queue.depth}</td><td class="num dlq${dead ? ' bad' : ' quiet'}" title="inbound DLQ ${a.queue.dlq}, outbox DLQ ${a.queue.outboxDlq}" data-label="dead letters">${dead}</td>`;
}

function heartbeatCell(a: AgentSummary, now: number): Html {
  const stale = a.state === 'awake' && a.lastHeartbeatAt !== undefined && now - a.lastHeartbeatAt > 90_000;
  return html`<td class="hb${stale ? ' warn' : ''}" title="${isoTime(a.lastHeartbeatAt)}" data-label="heartbeat">${a.state === 'asleep' && !a.lastHeartbeatAt ? '—' : ago(a.lastHeartbeatAt, now)}</td>`;
}

/** The warning sign, drawn: the page's font may have no glyph for ⚠. */
export const WARNING_MARK = html`<i class="mark-warn" aria-hidden="true">!</i>`;

/** A runtime's warnings (exec without a sandbox, or off for want of one), in full on hover and on the agent page. */
function warningMark(a: Pick<AgentSummary, 'id' | 'warnings'>): Html {
  if (!a.warnings.length) return html``;
  return html` <a class="warn-mark warn" href="/agents/${a.id}" title="${a.warnings.join('\n')}">${WARNING_MARK} ${a.warnings.length === 1 ? '1 warning' : `${a.warnings.length} warnings`}</a>`;
}

function agentRow(a: AgentSummary, now: number, chat: boolean): Html {
  return html`<tr class="agent-row r-${a.state}" data-agent="${a.id}" data-state="${a.state}">
<td class="st">${stateBadge(a, now)}</td>
<td class="who"><a href="/agents/${a.id}"><strong>${a.name}</strong></a> <small>${a.id}</small>${chat ? html` <a class="chat-link" href="/agents/${a.id}#chat">chat</a>` : ''}${warningMark(a)}</td>
<td class="model"><span>${a.model ?? '—'}</span><small>${profileLabel(a.profile)}</small>${a.spend ? html`<small class="spend${a.spend.reached || a.spend.error ? ' warn' : ''}">${spendLabel(a.spend, now)}</small>` : ''}</td>
${heartbeatCell(a, now)}
${queueCell(a)}
<td class="chart ct" data-label="turns · 24 h">${activityChart(a.activity)}</td>
<td class="chart cq" data-label="queue · 24 h">${queueChart(a.activity)}</td>
<td class="err-cell" title="${a.lastError ?? ''}" data-label="last error">${a.lastError ? html`<div>${a.lastError}</div>` : ''}</td>
<td class="acts">${actionButtons(a)}</td>
</tr>`;
}

export function pairingList(pairings: PairingView[], now: number): Html {
  if (!pairings.length) return html``;
  return html`<section class="card pairings"><h2>Pairing requests <span class="count">${pairings.length}</span></h2><ul>${pairings.map(
    (p) =>
      html`<li><strong>${p.displayName ?? `user ${p.peerId}`}</strong> wants to talk to ${p.agentId ?? `bot ${p.accountId}`} <small>(telegram ${p.accountId}, user ${p.peerId}, asked ${ago(p.createdAt, now)}, lapses ${until(p.expiresAt, now)})</small> <code>${p.code}</code> <button type="button" class="act act-approve" data-approve="${p.code}" data-name="${p.displayName ?? p.peerId}">approve</button></li>`,
  )}</ul></section>`;
}

function summary(view: FleetView): Html {
  const t = view.totals;
  return html`<div class="summary" role="status">
<span class="total"><strong>${t.agents}</strong> agents</span>
${AGENT_STATES.filter((s) => t.byState[s]).map((s) => html`<span class="chip s-${s}"><i></i><strong>${t.byState[s]}</strong> ${STATE_LABEL[s]}</span>`)}
<span class="chip${t.queued ? ' busy' : ' quiet'}"><strong>${t.queued}</strong> queued</span>
<span class="chip${t.deadLetters ? ' bad' : ' quiet'}"><strong>${t.deadLetters}</strong> dead letters</span>
<span class="chip quiet"><strong>${t.turns24h}</strong> turns / 24 h${t.errors24h ? html`, <b class="bad">${t.errors24h} failed</b>` : ''}</span>
${t.pendingPairings ? html`<span class="chip warn"><strong>${t.pendingPairings}</strong> pairing requests</span>` : ''}
${t.overBudget ? html`<span class="chip warn" title="their messages are answered with a note, their cron jobs and heartbeats paused"><strong>${t.overBudget}</strong> over budget</span>` : ''}
${t.withWarnings ? html`<span class="chip warn" title="see each agent's page"><strong>${t.withWarnings}</strong> ${t.withWarnings === 1 ? 'agent' : 'agents'} with warnings</span>` : ''}
</div>`;
}

/** The overview's one live part. Narrower than a laptop the table drops its charts; on a phone each row is a card, its figures labelled. */
export function overviewFragment(view: FleetView): Html {
  return livePart(
    'overview',
    html`${summary(view)}
<table class="fleet">
<thead><tr><th>state</th><th>agent</th><th>model · compute</th><th>heartbeat</th><th class="num">queue</th><th class="num">DLQ</th><th class="chart">turns · 24 h</th><th class="chart">queue · 24 h</th><th>last error</th><th></th></tr></thead>
<tbody>${view.agents.map((a) => agentRow(a, view.now, view.chat))}</tbody>
</table>
${pairingList(view.pairings, view.now)}`,
  );
}
