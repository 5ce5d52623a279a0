// The ports agent runtimes may connect out to: HTTPS always, HTTP only where an agent may
// fetch the web, and the port of every URL the config has a runtime reach.
import { describe, expect, it } from 'vitest';
import { runtimeEgressPorts } from '../../infra/runtime-egress.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';

const base: FleetConfigInput = {
  fleet: 'demo',
  agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 }, tools: { deny: ['group:web'] } }, list: [{ id: 'fran' }] },
  models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
  channels: {},
};
const ports = (input: FleetConfigInput) => runtimeEgressPorts(parseConfig(input)).map((p) => p.port);

describe('runtime egress', () => {
  it('is HTTPS alone for an agent that fetches nothing and reaches only default endpoints', () => {
    expect(ports(base)).toEqual([443]);
  });

  it('adds HTTP where an agent may fetch the web, through web_fetch or its browser', () => {
    expect(ports({ ...base, agents: { ...base.agents, defaults: { ...base.agents.defaults, tools: {} } } })).toEqual([80, 443]);
    const browserOnly = {
      ...base,
      agents: { ...base.agents, defaults: { ...base.agents.defaults, tools: { deny: ['web_fetch'], browser: { enabled: true } } } },
    };
    expect(ports(browserOnly)).toEqual([80, 443]);
  });

  it('adds each port a configured URL names, explicit or its scheme’s, each once', () => {
    const input: FleetConfigInput = {
      ...base,
      agents: {
        ...base.agents,
        list: [
          {
            id: 'fran',
            mcp: {
              servers: { a: { url: 'https://mcp.example.com:8443/mcp' }, b: { url: 'https://other.example.com:8443/' }, c: { url: 'http://mcp.internal/' } },
            },
            tools: {
              deny: ['group:web'],
              web: { search: { baseUrl: 'https://search.example.com:9443' } },
              media: { audio: { baseUrl: 'https://stt.example.com:7443/v1', model: 'whisper-1' } },
            },
            // Spoken replies (#31): a self-hosted speech server.
            tts: { auto: 'always', baseUrl: 'http://10.1.2.4:8880/v1' },
          },
        ],
      },
      models: { providers: { ...base.models.providers, local: { api: 'openai-completions', baseUrl: 'http://10.1.2.3:11434/v1' } } },
    };
    expect(ports(input)).toEqual([80, 443, 7443, 8443, 8880, 9443, 11434]);
  });
});
