// The dashboard's pure core with in-memory adapters: sign-in and session cookies, the
// read model, the actions and their refusals, next cron runs, and the rendering's escaping.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentMetrics } from '../../shared/adapters/memory/in-memory-agent-metrics.ts';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { InMemorySpendCounts } from '../../shared/adapters/memory/in-memory-spend.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { lifecycleActions } from '../../shared/dashboard/actions.ts';
import { authenticate, sessionCookieValid, sessionCookieValue } from '../../shared/dashboard/auth.ts';
import { nextRun } from '../../shared/cron/next-run.ts';
import { buildAgentDetail, buildFleetView, type DashboardSources } from '../../shared/dashboard/fleet-view.ts';
import { BUCKET_MS } from '../../shared/metrics/buckets.ts';
import { memoryLogger } from '../../shared/log.ts';
import { overviewFragment } from '../../shared/dashboard/pages/overview.ts';
import { agentFragment } from '../../shared/dashboard/pages/agent-page.ts';
import { pendingPairing } from '../support/pending-pairing.ts';

const TOKEN = 'unit-dashboard-token-000000000000';
const NOW = Date.parse('2026-03-02T10:07:00Z');

function fixture() {
  const config = parseConfig({
    fleet: 'demo',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [
        { id: 'jerry', name: 'Jerry <b>', runtime: { alwaysOn: true } },
        { id: 'ray', mcp: { servers: { files: { command: 'npx', args: ['server-filesystem'] }, web: { url: 'https://mcp.example.com/mcp' } } } },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions' } } },
    bindings: [{ agentId: 'ray', match: { channel: 'telegram', accountId: 'ray' } }],
    channels: { telegram: { accounts: { ray: { botTokenSecret: 'RAY_BOT_TOKEN' } } } },
    cron: {
      jobs: [
        {
          id: 'morning',
          agentId: 'ray',
          schedule: { kind: 'cron', expr: '30 7 * * 1-5', tz: 'Europe/Berlin' },
          payload: { kind: 'agentTurn', message: 'news' },
        },
      ],
    },
  });
  const registry = new InMemoryAgentRegistry();
  const compute = new InMemoryAgentCompute();
  const depths = new InMemoryQueueDepths();
  const metrics = new InMemoryAgentMetrics();
  const pairings = new InMemoryPairingStore();
  const sessions = new InMemorySessionRegistry();
  const clock = { now: () => NOW };
  const log = memoryLogger();
  const sources: DashboardSources = {
    config,
    where: 'aws',
    registry,
    queues: { stats: async (id) => ({ depth: await depths.depth(id), dlq: id === 'ray' ? 2 : 0, outboxDlq: 0 }) },
    sessions,
    pairings,
    metrics,
    clock,
    log,
    chat: false,
  };
  return { config, registry, compute, depths, metrics, pairings, sessions, sources, actions: lifecycleActions({ registry, compute, depths, clock, log }) };
}

describe('dashboard sign-in', () => {
  it('accepts the token as a bearer header only when it matches exactly', () => {
    const req = (authorization?: string) => ({ authorization, cookies: [] });
    expect(authenticate(TOKEN, 'demo', req(`Bearer ${TOKEN}`), NOW)).toEqual({ ok: true, via: 'bearer' });
    expect(authenticate(TOKEN, 'demo', req(`Bearer ${TOKEN}x`), NOW).ok).toBe(false);
    expect(authenticate(TOKEN, 'demo', req(TOKEN), NOW).ok).toBe(false);
    expect(authenticate(TOKEN, 'demo', req(), NOW)).toEqual({ ok: false, reason: 'not signed in' });
  });

  it('keeps a session cookie valid for 12 hours, for this fleet and this token only', () => {
    const value = sessionCookieValue(TOKEN, 'demo', NOW);
    expect(value).not.toContain(TOKEN);
    expect(sessionCookieValid(TOKEN, 'demo', value, NOW + 11 * 3600_000)).toBe(true);
    expect(sessionCookieValid(TOKEN, 'demo', value, NOW + 13 * 3600_000)).toBe(false);
    expect(sessionCookieValid(`${TOKEN}-rotated`, 'demo', value, NOW)).toBe(false);
    expect(sessionCookieValid(TOKEN, 'other', value, NOW)).toBe(false);
    expect(
      sessionCookieValid(
        TOKEN,
        'demo',
        value.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        NOW,
      ),
    ).toBe(false);
    expect(authenticate(TOKEN, 'demo', { authorization: undefined, cookies: [`a=b; clawfleet_dashboard=${value}`] }, NOW)).toEqual({ ok: true, via: 'cookie' });
  });
});

describe('dashboard read model and actions', () => {
  it('shows every agent, counts states, dead letters, turns and pending pairings', async () => {
    const f = fixture();
    await f.registry.transition('jerry', ['absent'], 'awake', NOW - 60_000);
    await f.registry.recordHeartbeat('jerry', NOW - 5_000, '1.2.3');
    await f.metrics.recordTurn({ agentId: 'jerry', inboundId: 'a', outcome: 'ended', at: NOW - BUCKET_MS });
    await f.metrics.recordTurn({ agentId: 'jerry', inboundId: 'a', outcome: 'ended', at: NOW - BUCKET_MS });
    await f.metrics.recordTurn({ agentId: 'jerry', inboundId: 'b', outcome: 'failed', at: NOW, error: 'boom' });
    await f.pairings.createPending(pendingPairing({ accountId: 'ray', peerId: '9', code: 'CODE1234' }, NOW));
    const view = await buildFleetView(f.sources);
    expect(view.agents.map((a) => [a.id, a.state, a.actions])).toEqual([
      ['jerry', 'awake', ['restart', 'hibernate']],
      ['ray', 'asleep', ['wake']],
    ]);
    expect(view.totals).toMatchObject({ agents: 2, byState: { awake: 1, asleep: 1 }, deadLetters: 2, pendingPairings: 1, turns24h: 2, errors24h: 1 });
    expect(view.pairings[0]).toMatchObject({ code: 'CODE1234', agentId: 'ray' });
    expect(view.agents[0]!.activity).toHaveLength(96);
    expect(view.agents[0]!.profile).toEqual({ cpus: 0.25, memoryMb: 512, alwaysOn: true, idleTimeoutMinutes: undefined, spot: false });
  });

  it('wakes, restarts and hibernates through the registry, and refuses what the state does not allow', async () => {
    const f = fixture();
    expect(await f.actions.act('ray', 'wake')).toBe('waking');
    expect(f.compute.calls).toEqual([{ agentId: 'ray', action: 'start' }]);
    await expect(f.actions.act('ray', 'wake')).rejects.toMatchObject({ code: 'ACTION_NOT_AVAILABLE' });
    expect(await f.actions.act('ray', 'restart')).toBe('restarting');
    expect(await f.actions.act('ray', 'hibernate')).toBe('asleep');
    expect(f.compute.running.has('ray')).toBe(false);
    // A message that waits when it is hibernated wakes it straight back up.
    await f.registry.transition('ray', ['asleep'], 'waking', NOW);
    f.depths.depths.set('ray', 1);
    expect(await f.actions.act('ray', 'hibernate')).toBe('waking');
  });

  it('gives the agent page its cron jobs with the next run in their time zone, and its sessions', async () => {
    const f = fixture();
    await f.sessions.put({ sessionKey: 'agent:ray:main', agentId: 'ray', target: { channel: 'none' }, updatedAt: NOW });
    const d = await buildAgentDetail('ray', f.sources);
    // Monday 2 March 2026, 10:07 UTC: the next 07:30 Berlin (06:30 UTC) on a weekday is Tuesday.
    expect(d.cron).toMatchObject([{ id: 'morning', nextRunAt: Date.parse('2026-03-03T06:30:00Z') }]);
    expect(d.sessions).toEqual([{ sessionKey: 'agent:ray:main', channel: 'none', updatedAt: NOW }]);
  });

  it('shows each MCP server’s state as the runtime’s last heartbeat reported it', async () => {
    const f = fixture();
    await f.registry.recordHeartbeat('ray', NOW, '1.0.0', {
      files: { state: 'ready', tools: 11 },
      web: { state: 'down', tools: 0, error: 'connection refused' },
    });
    const d = await buildAgentDetail('ray', f.sources);
    expect(d.mcp.map((m) => [m.name, m.live?.state])).toEqual([
      ['files', 'ready'],
      ['web', 'down'],
    ]);
    const page = agentFragment(d).text;
    expect(page).toContain('ready · 11 tools');
    expect(page).toContain('title="connection refused">down');
  });

  it('reads one-shot and fixed-rate schedules honestly', () => {
    expect(nextRun({ kind: 'at', at: '2026-03-02T12:00:00Z' }, NOW).at).toBe(Date.parse('2026-03-02T12:00:00Z'));
    expect(nextRun({ kind: 'at', at: '2026-03-01T12:00:00Z' }, NOW)).toEqual({ at: undefined, note: 'ran (one-shot in the past)' });
    expect(nextRun({ kind: 'every', every: '30m' }, NOW).at).toBeUndefined();
    expect(nextRun({ kind: 'cron', expr: '*/15 * * * *' }, NOW).at).toBe(Date.parse('2026-03-02T10:15:00Z'));
  });

  it('shows a runtime’s warnings on the overview (counted, in full on hover) and on the agent page, escaped', async () => {
    const f = fixture();
    const warning = 'exec is off: no sandbox is available (bubblewrap (bwrap) is not installed) <script>';
    await f.registry.recordHeartbeat('ray', NOW, '1.0.0', undefined, [warning]);
    const view = await buildFleetView(f.sources);
    expect(view.totals.withWarnings).toBe(1);
    expect(view.agents.map((a) => [a.id, a.warnings])).toEqual([
      ['jerry', []],
      ['ray', [warning]],
    ]);
    const overview = overviewFragment(view).text;
    expect(overview).toContain('<strong>1</strong> agent with warnings');
    // The sign is drawn (a glyph for ⚠ is not in every font), the text beside it.
    const mark = '<i class="mark-warn" aria-hidden="true">!</i>';
    expect(overview).toContain(`title="exec is off: no sandbox is available (bubblewrap (bwrap) is not installed) &lt;script&gt;">${mark} 1 warning</a>`);
    const page = agentFragment(await buildAgentDetail('ray', f.sources)).text;
    expect(page).toContain(`<li class="warn">${mark} exec is off: no sandbox is available (bubblewrap (bwrap) is not installed) &lt;script&gt;</li>`);
    expect(page).not.toContain('<script>');
  });

  it('shows a metered agent’s spend against its caps (#31), and counts those over budget; an unreadable count hides nothing else', async () => {
    const f = fixture();
    f.config.agents.list[1]!.budget = { dailyUsd: 1, monthlyUsd: 20 };
    const spend = new InMemorySpendCounts();
    await spend.add('ray', 'u1', 1_250_000, NOW);
    const view = await buildFleetView({ ...f.sources, spend });
    expect(view.agents.map((a) => [a.id, a.spend?.text])).toEqual([
      ['jerry', undefined],
      ['ray', '$1.25 of $1.00 today · $1.25 of $20.00 this month (UTC)'],
    ]);
    expect(view.totals.overBudget).toBe(1);
    const overview = overviewFragment(view).text;
    expect(overview).toContain('<strong>1</strong> over budget');
    expect(overview).toContain('daily budget reached, resting in 13 h 53 min');
    const page = agentFragment(await buildAgentDetail('ray', { ...f.sources, spend })).text;
    expect(page).toContain('<dt>spend</dt><dd><span class="warn">$1.25 of $1.00 today · $1.25 of $20.00 this month (UTC) — daily budget reached');
    const broken = await buildFleetView({ ...f.sources, spend: { totals: () => Promise.reject(new Error('throttled')) } });
    expect(broken.agents[1]!.spend).toMatchObject({ error: 'Error' });
    expect(broken.agents[1]!.queue).toBeDefined();
  });

  it('escapes names from the config in the rendered overview', async () => {
    const html = overviewFragment(await buildFleetView(fixture().sources)).text;
    expect(html).toContain('Jerry &lt;b&gt;');
    expect(html).not.toContain('Jerry <b>');
  });
});
