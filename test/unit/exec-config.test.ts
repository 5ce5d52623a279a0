// The config keys of exec and its sandbox (tools.exec, mcp.servers.<id>.sandbox): what is
// accepted, what is refused with which path, how agents.defaults merges, and that the
// runtime's config slice carries them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { configIssues } from '../support/config-issues.ts';

const example = () => JSON.parse(readFileSync('clawfleet.json', 'utf8')) as Record<string, any>;
const fran = (c: Record<string, any>) => c.agents.list.find((a: { id: string }) => a.id === 'fran');

describe('tools.exec', () => {
  it('accepts sandbox, security, allowlist and network, and the runtime’s slice carries them', () => {
    const c = example();
    fran(c).tools = { deny: ['web_fetch'], exec: { sandbox: 'required', security: 'allowlist', allowlist: ['git', '/usr/bin/ls'], network: false } };
    const config = parseConfig(c);
    expect(runtimeConfigFor(config, 'fran').agent.tools).toEqual({
      deny: ['web_fetch'],
      exec: { sandbox: 'required', security: 'allowlist', allowlist: ['git', '/usr/bin/ls'], network: false },
    });
  });

  it('merges tools.exec from agents.defaults key by key, while an agent’s allow/deny still replace the defaults’', () => {
    const c = example();
    c.agents.defaults.tools = { allow: ['read', 'exec'], exec: { security: 'allowlist', allowlist: ['git'], network: false } };
    fran(c).tools = { deny: ['web_fetch'], exec: { network: true } };
    const config = parseConfig(c);
    // fran's deny list replaces the defaults' allow list, as before; its exec keeps the defaults' security.
    expect(resolveAgent(config, 'fran').tools).toEqual({ deny: ['web_fetch'], exec: { security: 'allowlist', allowlist: ['git'], network: true } });
    expect(resolveAgent(config, 'grif').tools).toEqual({ allow: ['read', 'exec'], exec: { security: 'allowlist', allowlist: ['git'], network: false } });
  });

  it('refuses unknown values and keys, and allowlist entries that are not a program', () => {
    const c = example();
    fran(c).tools = { exec: { sandbox: 'maybe', security: 'some', allowlist: ['git status', '../bin/x', './x', '/usr/../bin/sh', 'ok'], colour: 'red' } };
    const issues = configIssues(c);
    const at = 'agents.list[1].tools.exec';
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        `${at}.sandbox`,
        `${at}.security`,
        `${at}.allowlist[0]`,
        `${at}.allowlist[1]`,
        `${at}.allowlist[2]`,
        `${at}.allowlist[3]`,
        `${at}.colour`,
      ]),
    );
    expect(issues.map((i) => i.path)).not.toContain(`${at}.allowlist[4]`);
    expect(issues.find((i) => i.path === `${at}.colour`)?.message).toMatch(/^unknown key; the keys here are /);
  });

  it('needs an allowlist when security is "allowlist", here or in the defaults', () => {
    const c = example();
    fran(c).tools = { exec: { security: 'allowlist' } };
    expect(configIssues(c)).toEqual([{ path: 'agents.list[1].tools.exec.allowlist', message: expect.stringContaining('needs at least one program') }]);
    fran(c).tools = { exec: { security: 'allowlist', allowlist: [] } };
    expect(configIssues(c)[0]?.path).toBe('agents.list[1].tools.exec.allowlist');
    c.agents.defaults.tools = { exec: { allowlist: ['git'] } };
    fran(c).tools = { exec: { security: 'allowlist' } };
    expect(() => parseConfig(c)).not.toThrow();
  });
});

describe('mcp.servers.<id>.sandbox', () => {
  it('is accepted on a stdio server and carried to the runtime', () => {
    const c = example();
    fran(c).mcp = { servers: { files: { command: 'npx', args: ['-y', 'some-server'], sandbox: true } } };
    expect(runtimeConfigFor(parseConfig(c), 'fran').agent.mcp?.servers.files).toMatchObject({ sandbox: true });
  });

  it('is a config error on a url server, which does not run here', () => {
    const c = example();
    fran(c).mcp = { servers: { remote: { url: 'https://mcp.example.com/mcp', sandbox: true } } };
    expect(configIssues(c)).toEqual([{ path: 'agents.list[1].mcp.servers.remote.sandbox', message: expect.stringContaining('stdio servers (command) only') }]);
    fran(c).mcp = { servers: { remote: { url: 'https://mcp.example.com/mcp', sandbox: false } } };
    expect(() => parseConfig(c)).not.toThrow();
  });
});
