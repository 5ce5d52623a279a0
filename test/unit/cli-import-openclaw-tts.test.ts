// The OpenClaw importer carries spoken replies (#31): OpenClaw's `tts` (top level, the legacy
// `messages.tts`, an agent's own) becomes clawfleet's `tts` — its mode, its OpenAI provider's
// model, voice, endpoint and key name, the length cap and timeout — and every provider, persona
// and option clawfleet does not have is reported with its path and why; the result validates.
import { describe, expect, it } from 'vitest';
import { convertOpenclaw } from '../../cli/openclaw/convert.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { resolveAgent } from '../../shared/config/resolve.ts';

const telegram = { channels: { telegram: { botToken: 'x' } } };

describe('import-openclaw: spoken replies', () => {
  it('takes the OpenAI provider, the mode and the limits into agents.defaults.tts, and an agent’s own voice over it', () => {
    const { config, notConverted } = convertOpenclaw(
      {
        ...telegram,
        tts: {
          auto: 'inbound',
          provider: 'openai',
          maxTextLength: 2000,
          timeoutMs: 20000,
          providers: {
            openai: { apiKey: '${TTS_KEY}', model: 'gpt-4o-mini-tts', speakerVoice: 'cedar', baseUrl: 'http://127.0.0.1:8880/v1', instructions: 'calm' },
            elevenlabs: { apiKey: '${ELEVENLABS_API_KEY}' },
          },
          persona: 'alfred',
        },
        agents: { list: [{ id: 'main' }, { id: 'reader', tts: { providers: { openai: { speakerVoice: 'alloy' } } } }] },
      },
      { fleet: 'f' },
    );
    const parsed = parseConfig(config);
    expect(parsed.agents.defaults!.tts).toEqual({
      auto: 'inbound',
      model: 'gpt-4o-mini-tts',
      voice: 'cedar',
      baseUrl: 'http://127.0.0.1:8880/v1',
      apiKeySecret: 'TTS_KEY',
      maxTextLength: 2000,
      timeoutMs: 20000,
    });
    expect(resolveAgent(parsed, 'reader').tts).toMatchObject({ voice: 'alloy', apiKeySecret: 'TTS_KEY', auto: 'inbound' });
    expect(notConverted.map((n) => n.path).sort()).toEqual(['tts.persona', 'tts.providers.elevenlabs', 'tts.providers.openai.instructions']);
  });

  it('reads the legacy messages.tts and enabled toggle, names OpenClaw’s key fallback, and refuses "tagged" and other providers by name', () => {
    const legacy = convertOpenclaw({ ...telegram, messages: { tts: { enabled: true, openai: { voice: 'nova' } } } }, { fleet: 'f' });
    expect(parseConfig(legacy.config).agents.defaults!.tts).toEqual({ auto: 'always', voice: 'nova', apiKeySecret: 'OPENAI_API_KEY' });
    expect(legacy.notes.join('\n')).toMatch(/messages\.tts\.enabled: the legacy toggle is tts\.auto "always"/);
    expect(legacy.notConverted).toEqual([]);

    const other = convertOpenclaw({ ...telegram, tts: { auto: 'tagged', provider: 'elevenlabs', providers: { elevenlabs: { apiKey: 'k' } } } }, { fleet: 'f' });
    expect(parseConfig(other.config).agents.defaults).not.toHaveProperty('tts');
    expect(other.notConverted.map((n) => n.path)).toEqual(['tts.auto', 'tts.provider', 'tts.providers.elevenlabs']);
    expect(other.notConverted[0]!.reason).toMatch(/"tagged" .* is not supported/);
  });

  it('carries no tts to agents kept on OpenClaw, saying why', () => {
    const { config, notConverted } = convertOpenclaw({ ...telegram, tts: { auto: 'always' } }, { fleet: 'f', runtime: 'openclaw' });
    expect(parseConfig(config).agents.defaults).not.toHaveProperty('tts');
    expect(notConverted).toContainEqual({ path: 'tts', reason: expect.stringMatching(/native runtime's/) });
  });
});
