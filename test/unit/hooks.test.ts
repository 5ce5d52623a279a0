import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { handleHook, MAX_HOOK_BODY_BYTES, MAX_HOOK_TEXT_CHARS, type HookRequest, type HooksDeps } from '../../shared/control/hooks.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentQueues } from '../../shared/ports.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const TOKEN = 'hooks-token-for-tests-0123456789abcdef';

function setup(overrides: { queues?: AgentQueues; token?: () => Promise<string>; edit?: (c: FleetConfig) => void; lifecycle?: boolean } = {}) {
  const config = loadConfigFile('clawfleet.json');
  config.hooks = {
    tokenSecret: 'HOOKS_TOKEN',
    mappings: {
      github: { agentId: 'fran', messageTemplate: 'PR {{body.pull_request.number}} "{{body.pull_request.title}}" by {{body.sender.login}}' },
      mail: { agentId: 'grif', messageTemplate: 'Mail from {{body.from}}: {{body.subject}}', sessionKey: 'hook:mail:{{body.threadId}}' },
    },
  };
  overrides.edit?.(config);
  const queues = new InMemoryAgentQueues();
  const log = memoryLogger();
  const clock = { now: () => 1_000 };
  const registry = new InMemoryAgentRegistry();
  const compute = new InMemoryAgentCompute();
  let ids = 0;
  const deps: HooksDeps = {
    config,
    hooksToken: overrides.token ?? (async () => TOKEN),
    queues: overrides.queues ?? queues,
    dedupe: new InMemoryInboundDedupe(clock.now),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(clock.now),
    newId: () => `id-${++ids}`,
    clock,
    log,
    ...(overrides.lifecycle ? { lifecycle: { registry, compute, depths: new InMemoryQueueDepths(), clock, log } } : {}),
  };
  return { deps, queues, log, registry, compute };
}

function request(path: string, body: unknown, opts: { headers?: Record<string, string | undefined>; method?: string; query?: string } = {}): HookRequest {
  return {
    method: opts.method ?? 'POST',
    path,
    query: opts.query,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...opts.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

const queued = (queues: InMemoryAgentQueues, agentId: string) =>
  queues
    .queue(agentId)
    .bodies()
    .map((b) => JSON.parse(b) as Record<string, unknown>);
const totalQueued = (queues: InMemoryAgentQueues) => [...queues.queues.values()].reduce((n, q) => n + q.depth, 0);

describe('POST /hooks/agent', () => {
  it('queues the message for the default agent in the hook’s own session and answers 202 with the envelope id', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'Summarize inbox', name: 'Email' }), deps);
    expect(res).toEqual({ status: 202, body: { ok: true, envelopeId: 'hook.id-1', agentId: 'jerry', sessionKey: 'agent:jerry:hook:email' } });
    expect(queued(queues, 'jerry')).toEqual([
      {
        v: PROTOCOL_VERSION,
        kind: 'message',
        id: 'hook.id-1',
        agentId: 'jerry',
        sessionKey: 'agent:jerry:hook:email',
        ts: 1_000,
        text: 'Summarize inbox',
        from: { channel: 'hook', accountId: 'agent', displayName: 'Email' },
      },
    ]);
    // Nobody to answer in a hook session: the outbox logs its replies.
    expect(await deps.sessions.get('agent:jerry:hook:email')).toEqual({
      sessionKey: 'agent:jerry:hook:email',
      agentId: 'jerry',
      target: { channel: 'none' },
      updatedAt: 1_000,
    });
    expect(await deps.origins.get('hook.id-1')).toMatchObject({ agentId: 'jerry', sessionKey: 'agent:jerry:hook:email', target: { channel: 'none' } });
  });

  it('names the session "default" when the hook has no name', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }), deps);
    expect(res.body.sessionKey).toBe('agent:jerry:hook:default');
  });

  it('routes to the agent the body names', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'fran', name: 'GitHub PR' }), deps);
    expect(res.body).toMatchObject({ agentId: 'fran', sessionKey: 'agent:fran:hook:github-pr' });
    expect(queues.queue('fran').depth).toBe(1);
  });

  it('answers 404 for an agent the fleet does not have, and queues nothing', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'zed' }), deps);
    expect(res).toEqual({ status: 404, body: { error: 'no agent "zed" in this fleet' } });
    expect(totalQueued(queues)).toBe(0);
  });

  it('uses a session key of the target agent as given, where the config lets callers choose', async () => {
    const { deps, queues } = setup({ edit: (c) => (c.hooks!.allowRequestSessionKey = true) });
    const res = await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'fran', sessionKey: 'agent:fran:hook:email:msg-123' }), deps);
    expect(res.body.sessionKey).toBe('agent:fran:hook:email:msg-123');
    expect(queued(queues, 'fran')[0]).toMatchObject({ sessionKey: 'agent:fran:hook:email:msg-123' });
  });

  it('scopes an OpenClaw-style session key ("hook:email:msg-123") under the agent', async () => {
    const { deps } = setup({ edit: (c) => (c.hooks!.allowRequestSessionKey = true) });
    const res = await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'hook:email:msg-123' }), deps);
    expect(res.body.sessionKey).toBe('agent:jerry:hook:email:msg-123');
  });

  it('refuses a session key of another agent with 400', async () => {
    const { deps, queues } = setup({ edit: (c) => (c.hooks!.allowRequestSessionKey = true) });
    const res = await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'fran', sessionKey: 'agent:grif:main' }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('sessionKey "agent:grif:main" belongs to agent "grif", not to "fran" who takes this hook');
    expect(totalQueued(queues)).toBe(0);
  });

  it('refuses a session key that cannot be a queue message group', async () => {
    const { deps } = setup({ edit: (c) => (c.hooks!.allowRequestSessionKey = true) });
    const res = await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'has spaces in it' }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/at most 128 printable ASCII characters without spaces/);
  });

  it('keeps the chat of an existing session the config lets it into, and answers there', async () => {
    const { deps } = setup({ edit: (c) => Object.assign(c.hooks!, { allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'main'] }) });
    const chat = { channel: 'telegram' as const, accountId: 'jerry', chatId: '42' };
    await deps.sessions.put({ sessionKey: 'agent:jerry:main', agentId: 'jerry', target: chat, updatedAt: 1 });
    const res = await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'agent:jerry:main' }), deps);
    expect(res.status).toBe(202);
    expect((await deps.sessions.get('agent:jerry:main'))?.target).toEqual(chat);
    expect((await deps.origins.get('hook.id-1'))?.target).toEqual(chat);
  });

  it('refuses unknown fields by name, with every problem at once', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 42, colour: 'red', priority: 1 }), deps);
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual(['unknown fields: "colour", "priority"', 'message: Invalid input: expected string, received number']);
    expect(res.body.error).toContain('unknown fields: "colour", "priority"');
    expect(totalQueued(queues)).toBe(0);
  });

  it.each([
    [{ deliver: true }, /deliver=true: replies to a hook session are logged, not delivered/],
    [{ channel: 'telegram' }, /channel: replies to a hook session are logged/],
    [{ to: '12345' }, /to: replies to a hook session are logged/],
    [{ model: 'openai/gpt-5.2-mini' }, /model: per-request model overrides are not supported yet/],
    [{ thinking: 'low' }, /thinking: per-request thinking levels are not supported yet/],
    [{ timeoutSeconds: 120 }, /timeoutSeconds: per-request turn timeouts are not supported yet/],
    [{ wakeMode: 'next-heartbeat' }, /wakeMode="next-heartbeat": clawfleet queues the event at once/],
  ])('says clearly that the OpenClaw field %j is not supported yet', async (extra, reason) => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi', ...extra }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(reason);
    expect(totalQueued(queues)).toBe(0);
  });

  it('accepts the OpenClaw values it honours: wakeMode "now" and deliver false', async () => {
    const { deps } = setup();
    expect((await handleHook(request('/hooks/agent', { message: 'hi', wakeMode: 'now', deliver: false }), deps)).status).toBe(202);
  });

  it('refuses a message without text, and a body that is not an object', async () => {
    const { deps } = setup();
    expect((await handleHook(request('/hooks/agent', {}), deps)).body.problems).toEqual(['message: Invalid input: expected string, received undefined']);
    expect((await handleHook(request('/hooks/agent', { message: '' }), deps)).body.problems).toEqual(['message: must not be empty']);
    expect((await handleHook(request('/hooks/agent', ['hi']), deps)).body).toMatchObject({ error: 'the body must be a JSON object' });
  });

  it('answers 413 for a message longer than one agent turn takes', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'x'.repeat(MAX_HOOK_TEXT_CHARS + 1) }), deps);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe(`message is ${MAX_HOOK_TEXT_CHARS + 1} characters; an agent turn takes at most ${MAX_HOOK_TEXT_CHARS}`);
    expect(totalQueued(queues)).toBe(0);
  });
});

describe('which sessions a hook caller may choose (hooks.allowRequestSessionKey, hooks.allowedSessionKeyPrefixes)', () => {
  it('refuses a body that names a session with 400 unless the config allows it, and queues nothing', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'hook:email:1' }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^sessionKey: this fleet does not let hook callers choose the session; .*hooks\.allowRequestSessionKey/);
    expect(totalQueued(queues)).toBe(0);
    expect((deps.origins as InMemoryInboundOrigins).records.size).toBe(0);
  });

  it('lets an allowed caller choose only hook: sessions by default, matched after the agent scope', async () => {
    const { deps } = setup({ edit: (c) => (c.hooks!.allowRequestSessionKey = true) });
    for (const key of ['main', 'agent:jerry:main', 'telegram:dm:42', 'dm:42', 'agent:jerry:telegram:group:-100', 'Hook:x', 'xhook:1']) {
      const res = await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: key }), deps);
      expect(res.status, key).toBe(400);
      expect(res.body.error, key).toMatch(
        /is not one a hook caller may choose: after "agent:jerry:" it must start with "hook:" \(hooks\.allowedSessionKeyPrefixes\)/,
      );
    }
    for (const key of ['hook:x', 'agent:jerry:hook:y'])
      expect((await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: key }), deps)).status, key).toBe(202);
  });

  it('takes the prefixes the config lists instead', async () => {
    const { deps } = setup({ edit: (c) => Object.assign(c.hooks!, { allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['ci:'] }) });
    expect((await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'ci:build-7' }), deps)).body.sessionKey).toBe('agent:jerry:ci:build-7');
    expect((await handleHook(request('/hooks/agent', { message: 'hi', sessionKey: 'hook:x' }), deps)).status).toBe(400);
  });

  it('bounds a mapping’s session key template filled from the body like a caller’s choice', async () => {
    const { deps, queues } = setup({
      edit: (c) => (c.hooks!.mappings!.steer = { agentId: 'fran', messageTemplate: 'x {{body.t}}', sessionKey: '{{body.session}}' }),
    });
    const res = await handleHook(request('/hooks/steer', { t: 'hi', session: 'main' }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^hook mapping "steer": sessionKey "main" is not one a hook caller may choose/);
    expect(totalQueued(queues)).toBe(0);
    expect((await handleHook(request('/hooks/steer', { t: 'hi', session: 'hook:ok' }), deps)).body.sessionKey).toBe('agent:fran:hook:ok');
  });

  it('leaves a mapping’s fixed session key to the operator who wrote it', async () => {
    const { deps } = setup({ edit: (c) => (c.hooks!.mappings!.fixed = { agentId: 'fran', messageTemplate: 'x {{body.t}}', sessionKey: 'main' }) });
    const res = await handleHook(request('/hooks/fixed', { t: 'hi' }), deps);
    expect(res).toMatchObject({ status: 202, body: { sessionKey: 'agent:fran:main' } });
  });
});

describe('POST /hooks/wake', () => {
  it('queues a system event into the default agent’s main session and answers 200', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/wake', { text: 'New email received', mode: 'now' }), deps);
    expect(res).toEqual({ status: 200, body: { ok: true, envelopeId: 'hook.id-1', agentId: 'jerry', sessionKey: 'agent:jerry:main' } });
    expect(queued(queues, 'jerry')).toEqual([
      { v: PROTOCOL_VERSION, kind: 'system_event', id: 'hook.id-1', agentId: 'jerry', sessionKey: 'agent:jerry:main', ts: 1_000, text: 'New email received' },
    ]);
  });

  it('leaves the main session’s chat in place', async () => {
    const { deps } = setup();
    const chat = { channel: 'telegram' as const, accountId: 'jerry', chatId: '42' };
    await deps.sessions.put({ sessionKey: 'agent:jerry:main', agentId: 'jerry', target: chat, updatedAt: 1 });
    await handleHook(request('/hooks/wake', { text: 'ping' }), deps);
    expect((await deps.sessions.get('agent:jerry:main'))?.target).toEqual(chat);
  });

  it('refuses mode "next-heartbeat", unknown fields and a missing text', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/wake', { mode: 'next-heartbeat', agentId: 'fran' }), deps);
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([
      'unknown field: "agentId"',
      'mode="next-heartbeat": clawfleet queues the event at once and wakes the agent (not supported yet); omit it or send "now"',
      'text: Invalid input: expected string, received undefined',
    ]);
  });
});

describe('POST /hooks/<mapping>', () => {
  const pr = { action: 'opened', pull_request: { number: 7, title: 'Fix the <b>bug</b>' }, sender: { login: 'ann' } };

  it('renders the mapping’s template from the body, unescaped, for the mapping’s agent', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/github', pr), deps);
    expect(res).toEqual({ status: 202, body: { ok: true, envelopeId: 'hook.id-1', agentId: 'fran', sessionKey: 'agent:fran:hook:github' } });
    expect(queued(queues, 'fran')[0]).toMatchObject({
      kind: 'message',
      text: 'PR 7 "Fix the <b>bug</b>" by ann',
      from: { channel: 'hook', accountId: 'github', displayName: 'github' },
    });
  });

  it('renders fields the body lacks as empty', async () => {
    const { deps, queues } = setup();
    await handleHook(request('/hooks/github', { pull_request: { number: 8 } }), deps);
    expect(queued(queues, 'fran')[0]).toMatchObject({ text: 'PR 8 "" by ' });
  });

  it('renders the mapping’s session key template, scoped under its agent', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/mail', { from: 'Ada', subject: 'Hello', threadId: 't-9' }), deps);
    expect(res.body).toMatchObject({ agentId: 'grif', sessionKey: 'agent:grif:hook:mail:t-9' });
  });

  it('refuses a body that renders an empty message', async () => {
    const { deps, queues } = setup({ edit: (c) => (c.hooks!.mappings!.bare = { agentId: 'fran', messageTemplate: '{{body.text}}' }) });
    const res = await handleHook(request('/hooks/bare', { other: 1 }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/rendered an empty message/);
    expect(totalQueued(queues)).toBe(0);
  });

  it('answers 413 when the rendered message is longer than one agent turn takes', async () => {
    const { deps } = setup({ edit: (c) => (c.hooks!.mappings!.twice = { agentId: 'fran', messageTemplate: '{{body.t}}{{body.t}}' }) });
    const res = await handleHook(request('/hooks/twice', { t: 'x'.repeat(MAX_HOOK_TEXT_CHARS / 2 + 1) }), deps);
    expect(res.status).toBe(413);
  });

  it('answers 404 for a hook name the fleet does not map, naming the ones it has', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/stripe', { any: 'thing' }), deps);
    expect(res).toEqual({ status: 404, body: { error: 'no hook "stripe"; this fleet has: agent, wake, github, mail' } });
  });
});

describe('hooks authentication', () => {
  it.each([
    ['no token', { authorization: undefined }, 'missing token: send "Authorization: Bearer <token>"'],
    ['a wrong bearer token', { authorization: 'Bearer not-the-token' }, 'bad token'],
    ['another auth scheme', { authorization: `Basic ${TOKEN}` }, 'the Authorization header must be "Bearer <token>"'],
    ['a wrong x-openclaw-token', { authorization: undefined, 'x-openclaw-token': 'nope' }, 'bad token'],
    ['two headers that disagree', { 'x-openclaw-token': 'something-else' }, 'bad token'],
  ])('refuses %s with 401 and queues nothing', async (_name, headers, error) => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    expect(res).toEqual({ status: 401, body: { error } });
    expect(totalQueued(queues)).toBe(0);
  });

  it('accepts the token as x-openclaw-token, as OpenClaw does, and a lower-case "bearer"', async () => {
    const { deps } = setup();
    expect(
      (await handleHook(request('/hooks/agent', { message: 'hi' }, { headers: { authorization: undefined, 'x-openclaw-token': TOKEN } }), deps)).status,
    ).toBe(202);
    expect((await handleHook(request('/hooks/agent', { message: 'hi' }, { headers: { authorization: `bearer ${TOKEN}` } }), deps)).status).toBe(202);
  });

  it('refuses a token in the query string with 400 saying why, even beside a valid header', async () => {
    const { deps, queues, log } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { query: `token=${TOKEN}` }), deps);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/a token in the query string is refused: URLs end up in access logs/);
    expect(totalQueued(queues)).toBe(0);
    expect(JSON.stringify(log.lines)).not.toContain(TOKEN);
  });

  it('refuses other query parameters', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { query: 'debug=1' }), deps);
    expect(res).toEqual({ status: 400, body: { error: 'hooks take no query parameters (got "debug")' } });
  });

  it('answers 503 when the token cannot be read, so the caller retries', async () => {
    const { deps } = setup({ token: async () => Promise.reject(new Error('ResourceNotFoundException')) });
    expect((await handleHook(request('/hooks/agent', { message: 'hi' }), deps)).status).toBe(503);
  });

  it('refuses every call while the configured token is too short to be safe', async () => {
    const { deps, log } = setup({ token: async () => 'short' });
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers: { authorization: 'Bearer short' } }), deps);
    expect(res).toEqual({ status: 500, body: { error: 'hooks are misconfigured on the server' } });
    expect(log.lines.some((l) => String(l.msg).includes('shorter than 16 characters'))).toBe(true);
  });

  it('never writes the token or the body to the log', async () => {
    const { deps, log } = setup();
    await handleHook(request('/hooks/agent', { message: 'secret plans for tuesday' }), deps);
    await handleHook(request('/hooks/agent', { message: 'x' }, { headers: { authorization: `Bearer ${TOKEN}x` } }), deps);
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('secret plans');
    expect(log.lines.find((l) => l.msg === 'hook queued')).toMatchObject({ endpoint: 'agent', envelopeId: 'hook.id-1', agentId: 'jerry' });
  });
});

describe('hooks request limits', () => {
  it('answers 404 when the fleet has no hooks', async () => {
    const { deps } = setup({ edit: (c) => delete c.hooks });
    expect((await handleHook(request('/hooks/agent', { message: 'hi' }), deps)).status).toBe(404);
  });

  it('answers 405 to anything but POST', async () => {
    const { deps } = setup();
    expect(await handleHook(request('/hooks/agent', '', { method: 'GET' }), deps)).toEqual({ status: 405, body: { error: 'hooks take POST only' } });
  });

  it('answers 404 to a path outside /hooks/<name>', async () => {
    const { deps } = setup();
    expect((await handleHook(request('/hooks/agent/extra', { message: 'hi' }), deps)).status).toBe(404);
    expect((await handleHook(request('/hooks/', { message: 'hi' }), deps)).status).toBe(404);
  });

  it('answers 413 to a body over 256 KB', async () => {
    const { deps, queues } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'x'.repeat(MAX_HOOK_BODY_BYTES) }), deps);
    expect(res).toEqual({ status: 413, body: { error: `body larger than ${MAX_HOOK_BODY_BYTES} bytes` } });
    expect(totalQueued(queues)).toBe(0);
  });

  it.each([
    ['text/plain', 415],
    [undefined, 415],
    ['application/x-www-form-urlencoded', 415],
    ['application/json; charset=utf-8', 202],
    ['application/cloudevents+json', 202],
  ])('answers a Content-Type of %s with %i', async (contentType, status) => {
    const { deps } = setup();
    expect((await handleHook(request('/hooks/agent', { message: 'hi' }, { headers: { 'content-type': contentType } }), deps)).status).toBe(status);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const { deps } = setup();
    expect(await handleHook(request('/hooks/agent', '{"message":'), deps)).toEqual({ status: 400, body: { error: 'body is not JSON' } });
  });
});

describe('hooks admission', () => {
  it('queues a retried request with the same Idempotency-Key once, under one envelope id', async () => {
    const { deps, queues } = setup();
    const headers = { 'idempotency-key': 'delivery-8f2c' };
    const first = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    const again = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    expect(first.body.envelopeId).toMatch(/^hook\.agent\.[0-9a-f]{40}$/);
    expect(again).toEqual({ status: 202, body: { ...first.body, duplicate: true } });
    expect(queues.queue('jerry').depth).toBe(1);
  });

  it('treats one Idempotency-Key on two endpoints as two requests', async () => {
    const { deps, queues } = setup();
    const headers = { 'idempotency-key': 'k-1' };
    const agent = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    const wake = await handleHook(request('/hooks/wake', { text: 'hi' }, { headers }), deps);
    expect(agent.body.envelopeId).not.toBe(wake.body.envelopeId);
    expect(queues.queue('jerry').depth).toBe(2);
  });

  it('refuses an Idempotency-Key it cannot use', async () => {
    const { deps } = setup();
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers: { 'idempotency-key': 'has space' } }), deps);
    expect(res.status).toBe(400);
  });

  it('answers 503 when the queue is down, and queues the retry once it is back', async () => {
    const real = new InMemoryAgentQueues();
    let down = true;
    const flaky: AgentQueues = { send: async (e) => (down ? Promise.reject(new Error('SQS unavailable')) : real.send(e)) };
    const { deps } = setup({ queues: flaky });
    const headers = { 'idempotency-key': 'retry-me' };
    const res = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    expect(res.status).toBe(503);
    down = false;
    const retry = await handleHook(request('/hooks/agent', { message: 'hi' }, { headers }), deps);
    expect(retry.status).toBe(202);
    expect(retry.body.duplicate).toBeUndefined();
    expect(real.queue('jerry').depth).toBe(1);
  });

  it('wakes a sleeping agent and records activity once the envelope is queued', async () => {
    const { deps, compute, registry } = setup({ lifecycle: true });
    await registry.transition('fran', ['absent'], 'asleep', 0);
    await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'fran' }), deps);
    expect(compute.calls).toEqual([{ agentId: 'fran', action: 'start' }]);
    expect(await registry.get('fran')).toMatchObject({ state: 'waking', lastActivityAt: 1_000 });
  });

  it('still answers 202 when waking fails: the health tick wakes an agent whose queue is not empty', async () => {
    const { deps, compute, queues } = setup({ lifecycle: true });
    compute.setRunning = async () => Promise.reject(new Error('ECS throttled'));
    const res = await handleHook(request('/hooks/agent', { message: 'hi', agentId: 'fran' }), deps);
    expect(res.status).toBe(202);
    expect(queues.queue('fran').depth).toBe(1);
  });

  it('never throws: an unexpected failure is a 500', async () => {
    const { deps } = setup();
    deps.sessions.get = () => {
      throw new TypeError('bug');
    };
    // A synchronous throw inside the admission steps is still caught.
    expect((await handleHook(request('/hooks/agent', { message: 'hi' }), deps)).status).toBe(503);
    const broken = {
      ...deps,
      clock: {
        now: () => {
          throw new Error('clock broke');
        },
      },
    };
    expect(await handleHook(request('/hooks/agent', { message: 'hi' }), broken)).toEqual({ status: 500, body: { error: 'internal error' } });
  });
});
