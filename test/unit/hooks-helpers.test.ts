import { describe, expect, it } from 'vitest';
import { authenticateHook, queryStringProblem } from '../../shared/hooks/auth.ts';
import { hookEnvelopeId, hookNameSlug, hookSessionKey, hookSessionPolicy } from '../../shared/hooks/hook-session.ts';
import { renderTemplate } from '../../shared/hooks/template.ts';

describe('hook templates', () => {
  const body = { from: 'Ada', n: 3, ok: true, nil: null, messages: [{ subject: 'Hello' }, { subject: 'Again' }], meta: { tags: ['a', 'b'] } };
  const render = (t: string, b: unknown = body) => renderTemplate(t, b, 1_000);

  it('reads fields, nested fields and array items by .index or [index]', () => {
    expect(render('{{body.from}} {{ body.n }} {{body.ok}} {{body.messages[1].subject}} {{body.messages.0.subject}}').text).toBe('Ada 3 true Again Hello');
  });

  it('renders objects and arrays as JSON, and {{body}} as the whole body', () => {
    expect(render('{{body.meta}}').text).toBe('{"tags":["a","b"]}');
    expect(render('{{body}}', { a: 1 }).text).toBe('{"a":1}');
  });

  it('renders missing fields, null and indices into non-arrays as empty', () => {
    expect(render('[{{body.nope}}][{{body.nil}}][{{body.from.x}}][{{body.meta[5]}}][{{body.from[0]}}]').text).toBe('[][][][][]');
    expect(render('[{{body.x}}]', 'just a string').text).toBe('[]');
  });

  it('never reaches the prototype', () => {
    expect(render('[{{body.constructor}}][{{body.__proto__}}][{{body.from.length}}]').text).toBe('[][][]');
  });

  it('escapes nothing: it is text for a model', () => {
    expect(render('{{body.h}}', { h: '<b>&"\'</b>' }).text).toBe('<b>&"\'</b>');
  });

  it('leaves other braces as written', () => {
    expect(render('{{payload.x}} {{ }} {body.from} {{body.from}}').text).toBe('{{payload.x}} {{ }} {body.from} Ada');
  });

  it('stops at the cap and says so', () => {
    const out = renderTemplate('{{body.t}}{{body.t}}{{body.t}}', { t: 'x'.repeat(400) }, 1_000);
    expect(out).toEqual({ text: 'x'.repeat(1_000), tooLong: true });
    expect(renderTemplate('abc', {}, 3)).toEqual({ text: 'abc', tooLong: false });
  });
});

describe('hook session keys', () => {
  it('makes a hook name fit for a session key', () => {
    expect(hookNameSlug('GitHub PR #12')).toBe('github-pr-12');
    expect(hookNameSlug('   ')).toBe('default');
    expect(hookNameSlug(undefined)).toBe('default');
    expect(hookNameSlug('Ünïcode only')).toBe('n-code-only');
  });

  it('keeps an agent’s own key, scopes a bare one and refuses a foreign or malformed one', () => {
    const policy = hookSessionPolicy(undefined);
    const op = (key: string) => ({ key, chosenBy: 'operator' as const });
    expect(hookSessionKey('fran', op('agent:fran:x'), undefined, policy)).toEqual({ ok: true, sessionKey: 'agent:fran:x' });
    expect(hookSessionKey('fran', op('hook:mail:1'), undefined, policy)).toEqual({ ok: true, sessionKey: 'agent:fran:hook:mail:1' });
    expect(hookSessionKey('fran', op('agent:grif:x'), undefined, policy)).toMatchObject({ ok: false });
    expect(hookSessionKey('fran', op('agent:'), undefined, policy)).toMatchObject({ ok: false, problem: expect.stringContaining('is not a session key') });
    expect(hookSessionKey('fran', op('x'.repeat(200)), undefined, policy)).toMatchObject({ ok: false });
  });

  it('lets a caller choose only keys whose part after agent:<id>: starts with an allowed prefix (default "hook:")', () => {
    const caller = (key: string) => ({ key, chosenBy: 'caller' as const });
    expect(hookSessionPolicy(undefined)).toEqual({ allowRequestSessionKey: false, allowedPrefixes: ['hook:'] });
    const policy = hookSessionPolicy({ allowRequestSessionKey: true });
    expect(hookSessionKey('fran', caller('hook:mail:1'), undefined, policy)).toEqual({ ok: true, sessionKey: 'agent:fran:hook:mail:1' });
    expect(hookSessionKey('fran', caller('agent:fran:hook:x'), undefined, policy)).toEqual({ ok: true, sessionKey: 'agent:fran:hook:x' });
    for (const key of ['main', 'agent:fran:main', 'telegram:dm:7', 'HOOK:x', 'agent:fran:agent:fran:hook:x'])
      expect(hookSessionKey('fran', caller(key), undefined, policy).ok, key).toBe(false);
    // The operator's own fixed key is not the caller's choice.
    expect(hookSessionKey('fran', { key: 'main', chosenBy: 'operator' }, undefined, policy)).toEqual({ ok: true, sessionKey: 'agent:fran:main' });
    const custom = hookSessionPolicy({ allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'main'] });
    expect(hookSessionKey('fran', caller('agent:fran:main'), undefined, custom)).toEqual({ ok: true, sessionKey: 'agent:fran:main' });
  });

  it('derives one envelope id per endpoint and Idempotency-Key, and a fresh one without a key', () => {
    const id = hookEnvelopeId('agent', 'k', () => 'unused');
    expect(hookEnvelopeId('agent', 'k', () => 'unused')).toBe(id);
    expect(hookEnvelopeId('wake', 'k', () => 'unused')).not.toBe(id);
    expect(hookEnvelopeId('agent', undefined, () => 'fresh')).toBe('hook.fresh');
  });
});

describe('hook authentication', () => {
  const token = 'a-long-enough-hooks-token';
  it('accepts the token in either header, and both when they agree', () => {
    expect(authenticateHook(token, { authorization: `Bearer ${token}` })).toEqual({ ok: true, via: 'authorization' });
    expect(authenticateHook(token, { 'x-openclaw-token': token })).toEqual({ ok: true, via: 'x-openclaw-token' });
    expect(authenticateHook(token, { authorization: `Bearer ${token}`, 'x-openclaw-token': token })).toEqual({ ok: true, via: 'both' });
  });

  it('refuses a prefix or an extension of the token', () => {
    expect(authenticateHook(token, { authorization: `Bearer ${token.slice(0, -1)}` }).ok).toBe(false);
    expect(authenticateHook(token, { authorization: `Bearer ${token}x` }).ok).toBe(false);
    expect(authenticateHook(token, { authorization: 'Bearer' }).ok).toBe(false);
  });

  it('refuses tokens in the query string under any likely name', () => {
    for (const q of ['token=x', 'hook_token=x', 'access_token=x', 'apiKey=x', 'auth=x', 'secret=x']) {
      expect(queryStringProblem(q)).toMatch(/a token in the query string is refused/);
    }
    expect(queryStringProblem('')).toBeUndefined();
    expect(queryStringProblem(undefined)).toBeUndefined();
  });
});
