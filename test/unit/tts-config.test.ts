// `tts` in clawfleet.json (#31): per agent and in agents.defaults, merged key by key; what a
// runtime is told; the key it must have; and what is refused where the config enters —
// OpenClaw's "tagged" mode by name, a baseUrl that is not http(s) or carries credentials, limits
// out of range, and tts on an agent of runtime.kind "openclaw", whose bridge sends text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { resolveAgent, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { resolvedTts } from '../../shared/config/tts.ts';
import { secretsNeeded } from '../../shared/secrets/agent-secrets.ts';
import { configIssues } from '../support/config-issues.ts';

const example = () => JSON.parse(readFileSync('clawfleet.json', 'utf8'));

describe('tts in the config', () => {
  it('merges an agent’s own over the defaults key by key, tells the runtime, and needs its key in the agent’s secret', () => {
    const c = example();
    c.agents.defaults.tts = { auto: 'inbound', apiKeySecret: 'OPENAI_API_KEY', voice: 'coral' };
    c.agents.list[1].tts = { voice: 'alloy', maxTextLength: 800 };
    const config = parseConfig(c);
    expect(resolveAgent(config, 'fran').tts).toEqual({ auto: 'inbound', apiKeySecret: 'OPENAI_API_KEY', voice: 'alloy', maxTextLength: 800 });
    expect(resolveAgent(config, 'grif').tts).toEqual({ auto: 'inbound', apiKeySecret: 'OPENAI_API_KEY', voice: 'coral' });
    const runtime = runtimeConfigFor(config, 'fran');
    expect(runtime.agent.tts).toEqual({ auto: 'inbound', apiKeySecret: 'OPENAI_API_KEY', voice: 'alloy', maxTextLength: 800 });
    expect(resolvedTts(runtime.agent.tts!)).toEqual({
      auto: 'inbound',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini-tts',
      voice: 'alloy',
      apiKeySecret: 'OPENAI_API_KEY',
      maxTextLength: 800,
      timeoutMs: 30_000,
    });
    c.agents.list[1].tts = { apiKeySecret: 'TTS_KEY' };
    expect(secretsNeeded(runtimeConfigFor(parseConfig(c), 'fran'), { modelKeys: true })).toContainEqual({ name: 'TTS_KEY', usedBy: 'spoken replies (tts)' });
  });

  it('refuses OpenClaw’s "tagged" by name, a baseUrl that is not http(s) or carries credentials, and limits out of range', () => {
    const c = example();
    c.agents.list[1].tts = { auto: 'tagged', baseUrl: 'https://user:pass@tts.example.com/v1', maxTextLength: 50, timeoutMs: 500_000 };
    c.agents.list[2].tts = { baseUrl: 'file:///etc/passwd', voice: '' };
    expect(configIssues(c)).toEqual([
      {
        path: 'agents.list[1].tts.auto',
        message:
          '"tagged" (spoken only where the model writes [[tts:…]] directives) is not supported; use "off", "always" or "inbound", and /voice per session',
      },
      { path: 'agents.list[1].tts.baseUrl', message: 'must not carry credentials: the key is apiKeySecret, a name in the agent secret' },
      { path: 'agents.list[1].tts.maxTextLength', message: expect.stringMatching(/50 is too small; expected a whole number from 100 to 4096/) },
      { path: 'agents.list[1].tts.timeoutMs', message: expect.stringMatching(/500000 is too big; expected a whole number from 1000 to 120000/) },
      { path: 'agents.list[2].tts.baseUrl', message: 'must be an http(s) URL (got "file:///etc/passwd")' },
      { path: 'agents.list[2].tts.voice', message: 'must not be empty' },
    ]);
  });

  it('refuses tts for an agent of runtime.kind "openclaw", whose bridge sends text', () => {
    const c = example();
    c.agents.list[1].runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
    c.agents.defaults.tts = { auto: 'always' };
    expect(configIssues(c)).toEqual([{ path: 'agents.list[1].tts', message: expect.stringMatching(/^spoken replies are the native runtime's/) }]);
  });
});
