import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { route } from '../../shared/routing/route.ts';
import {
  agentOfSessionKey,
  controlGroupOf,
  cronSessionKey,
  hookSessionKeyOf,
  mainSessionKey,
  sessionKeyFor,
  sessionScope,
  type Peer,
} from '../../shared/routing/session-key.ts';

const config = (over: Record<string, unknown> = {}) =>
  parseConfig({
    fleet: 'demo',
    agents: {
      defaults: { model: 'm/x', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'home', default: true }, { id: 'work' }, { id: 'vip' }, { id: 'any' }],
    },
    models: { providers: { m: { api: 'openai-completions' } } },
    channels: { telegram: { accounts: { main: { botTokenSecret: 'MAIN' }, biz: { botTokenSecret: 'BIZ' } } } },
    bindings: [
      { agentId: 'vip', match: { channel: 'telegram', accountId: 'main', peer: { kind: 'direct', id: '42' } } },
      { agentId: 'work', match: { channel: 'telegram', accountId: 'biz' } },
      { agentId: 'any', match: { channel: 'telegram' } },
    ],
    ...over,
  });

const dm = (accountId: string, id: string): Peer => ({ channel: 'telegram', accountId, kind: 'direct', id });

describe('routing', () => {
  it('prefers a peer binding over the account binding', () => {
    expect(route(config(), dm('main', '42'))).toMatchObject({ agentId: 'vip', matchedBy: 'peer' });
  });

  it('uses the account binding when no peer binding matches', () => {
    expect(route(config(), dm('biz', '42'))).toMatchObject({ agentId: 'work', matchedBy: 'account' });
  });

  it('falls back to a channel-wide binding', () => {
    expect(route(config(), dm('main', '7'))).toMatchObject({ agentId: 'any', matchedBy: 'channel' });
  });

  it('falls back to the default agent when no binding matches', () => {
    expect(route(config({ bindings: [] }), dm('main', '7'))).toMatchObject({ agentId: 'home', matchedBy: 'default' });
  });

  it('forms session keys as OpenClaw does, per dmScope, group and topic', () => {
    const peer = dm('main', '7');
    expect(sessionKeyFor('home', peer)).toBe('agent:home:main');
    expect(sessionKeyFor('home', peer, 'per-peer')).toBe('agent:home:dm:7');
    expect(sessionKeyFor('home', peer, 'per-channel-peer')).toBe('agent:home:telegram:dm:7');
    expect(sessionKeyFor('home', peer, 'per-account-channel-peer')).toBe('agent:home:telegram:main:dm:7');
    const group: Peer = { channel: 'telegram', accountId: 'main', kind: 'group', id: '-1001', topicId: 5 };
    expect(sessionKeyFor('home', group)).toBe('agent:home:telegram:group:-1001:topic:5');
    expect(agentOfSessionKey('agent:home:telegram:group:-1001')).toBe('home');
  });

  it('forms every other session key in the one module, each read back to its agent', () => {
    const keys = {
      main: mainSessionKey('home'),
      isolatedCron: cronSessionKey('home', 'digest', 'isolated'),
      mainCron: cronSessionKey('home', 'digest', 'main'),
      hook: hookSessionKeyOf('home', 'github-pr'),
      control: controlGroupOf('home'),
    };
    expect(keys).toEqual({
      main: 'agent:home:main',
      isolatedCron: 'agent:home:cron:digest',
      mainCron: 'agent:home:main',
      hook: 'agent:home:hook:github-pr',
      control: 'agent:home:control',
    });
    for (const key of Object.values(keys)) {
      expect(key.startsWith(sessionScope('home'))).toBe(true);
      expect(agentOfSessionKey(key)).toBe('home');
    }
    // The scope ends at its colon: agent "home" never owns agent "homer"'s sessions.
    expect(mainSessionKey('homer').startsWith(sessionScope('home'))).toBe(false);
  });

  it('honours session.dmScope from the config', () => {
    expect(route(config({ session: { dmScope: 'per-peer' } }), dm('main', '7')).sessionKey).toBe('agent:any:dm:7');
  });
});
