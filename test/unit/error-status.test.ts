// Error codes and their HTTP answers (shared/errors.ts, shared/http/error-status.ts): one
// closed list of codes, each with its status (the compiler checks that the map is complete),
// no code listed that nothing raises, and both HTTP edges answering from the same map — a
// caller's mistake with its message and code, a fault of ours with a bare 500, logged once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handleDashboard, type DashboardDeps } from '../../shared/dashboard/handler.ts';
import { ActionRefused } from '../../shared/dashboard/actions.ts';
import type { DashboardSources } from '../../shared/dashboard/fleet-view.ts';
import { ClawfleetError, ConfigError, EnvelopeError } from '../../shared/errors.ts';
import { ERROR_STATUS, errorAnswer } from '../../shared/http/error-status.ts';
import { parseJsonBody } from '../../shared/http/json-body.ts';
import { memoryLogger } from '../../shared/log.ts';
import { z } from 'zod';

const SOURCE_DIRS = ['shared', 'local', 'cli', 'runtime-image/src', 'functions', 'infra', 'scripts'];
const LISTS = new Set(['shared/errors.ts', 'shared/http/error-status.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the error codes', () => {
  it('are each raised somewhere: the list holds no code nothing uses', () => {
    const text = SOURCE_DIRS.flatMap(sources)
      .filter((f) => !LISTS.has(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = Object.keys(ERROR_STATUS).filter((code) => !text.includes(`'${code}'`));
    expect(Object.keys(ERROR_STATUS).length).toBeGreaterThan(40);
    expect(unused).toEqual([]);
  });

  it('answer a caller’s mistake with its status, message and code, and nothing else', () => {
    expect(errorAnswer(new ClawfleetError('AGENT_UNKNOWN', 'no agent "zed"'))).toEqual({
      status: 404,
      body: { error: 'no agent "zed"', code: 'AGENT_UNKNOWN' },
    });
    expect(errorAnswer(new ActionRefused('ACTION_RACED', 'jerry changed state'))).toEqual({
      status: 409,
      body: { error: 'jerry changed state', code: 'ACTION_RACED' },
    });
    expect(errorAnswer(new EnvelopeError('ENVELOPE_VERSION', 'version 2'))?.status).toBe(400);
    expect(errorAnswer(new ClawfleetError('FLEET_STOPPING', 'the fleet is stopping'))?.status).toBe(503);
    // Faults of ours: no answer here, so the edge logs them and says only "internal error".
    for (const err of [
      new ClawfleetError('SECRET_MISSING', 'secret "x" has no value "BOT"'),
      new ConfigError([{ path: 'a', message: 'b' }]),
      new Error('boom'),
      'a string',
    ]) {
      expect(errorAnswer(err)).toBeUndefined();
    }
  });

  it('read a JSON body with one parser for both edges, naming paths, never values', () => {
    const Body = z.strictObject({ text: z.string().max(5) });
    expect(parseJsonBody(Body, '{"text":"hi"}')).toEqual({ text: 'hi' });
    const refusal = (text: string) => {
      try {
        parseJsonBody(Body, text);
      } catch (err) {
        return errorAnswer(err);
      }
      throw new Error('accepted');
    };
    expect(refusal('{"text":')).toEqual({ status: 400, body: { error: 'body is not JSON', code: 'BODY_NOT_JSON' } });
    const invalid = refusal('{"text":"sk-too-long-secret","extra":1}');
    expect(invalid).toMatchObject({
      status: 400,
      body: { code: 'BODY_INVALID', error: expect.stringMatching(/^text: .*; \(root\): Unrecognized key: "extra"$/) },
    });
    expect(invalid?.body.error).not.toContain('sk-too-long-secret');
  });
});

describe('the dashboard’s answers, from the same map', () => {
  const token = 'unit-dashboard-token-0123456789';
  const log = memoryLogger();
  let act: (agentId: string) => Promise<'asleep'> = async () => 'asleep';
  const deps: DashboardDeps = {
    // Only what these requests touch.
    sources: { config: { fleet: 'demo', agents: { list: [{ id: 'jerry' }] } }, clock: { now: () => 1_764_000_000_000 }, log } as unknown as DashboardSources,
    actions: { act: (agentId) => act(agentId) },
    token: async () => token,
    secureCookie: false,
    loginHint: 'the secrets file',
    refreshMs: 5_000,
  };
  const post = async (path: string, body = '{}', headers: Record<string, string> = {}) => {
    const res = await handleDashboard(
      {
        method: 'POST',
        path,
        query: '',
        headers: { host: '127.0.0.1:8787', 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        cookies: [],
        body,
      },
      deps,
    );
    return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
  };

  it('says what was wrong with the request, with its code', async () => {
    expect(await post('/api/fleet/zed/wake')).toEqual({ status: 404, body: { error: 'no agent "zed" in fleet "demo"', code: 'AGENT_UNKNOWN' } });
    expect(await post('/api/fleet/jerry/explode')).toMatchObject({ status: 404, body: { code: 'ROUTE_UNKNOWN' } });
    expect(await post('/api/fleet/jerry/wake', 'not json')).toEqual({ status: 400, body: { error: 'body is not JSON', code: 'BODY_NOT_JSON' } });
    expect(await post('/api/fleet/jerry/wake', '{"force":true}')).toMatchObject({ status: 400, body: { code: 'BODY_INVALID' } });
    expect(await post('/api/fleet/jerry/wake', '{}', { 'content-type': 'text/plain' })).toMatchObject({
      status: 415,
      body: { code: 'CONTENT_TYPE_UNSUPPORTED' },
    });
    expect(await post('/api/fleet/jerry/wake', '{}', { authorization: 'Bearer wrong' })).toMatchObject({ status: 401, body: { code: 'SIGN_IN_REQUIRED' } });
    act = async () => {
      throw new ActionRefused('ACTION_RACED', 'jerry changed state meanwhile');
    };
    expect(await post('/api/fleet/jerry/wake')).toEqual({ status: 409, body: { error: 'jerry changed state meanwhile', code: 'ACTION_RACED' } });
    act = async () => {
      throw new ClawfleetError('FLEET_STOPPING', 'the fleet is stopping');
    };
    expect(await post('/api/fleet/jerry/wake')).toEqual({ status: 503, body: { error: 'the fleet is stopping', code: 'FLEET_STOPPING' } });
  });

  it('answers a fault of ours with a bare 500 and logs it once, its message kept from the caller', async () => {
    act = async () => {
      throw new ClawfleetError('SECRET_UNREADABLE', 'cannot read secret "clawfleet/demo/control/dashboard": AccessDenied');
    };
    const before = log.lines.length;
    expect(await post('/api/fleet/jerry/wake')).toEqual({ status: 500, body: { error: 'internal error' } });
    expect(log.lines.slice(before)).toEqual([expect.objectContaining({ level: 'error', msg: 'dashboard request failed', errorCode: 'SECRET_UNREADABLE' })]);
  });
});
