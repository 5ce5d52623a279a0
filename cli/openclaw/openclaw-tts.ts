// OpenClaw's `tts` (OpenClaw 2026.9.6: top level, `messages.tts` in the spelling its doctor
// migrates, and an agent's own `tts` merged over it) as clawfleet's `tts`: its mode (`auto`,
// the legacy `enabled`), and its OpenAI provider — clawfleet speaks through one
// OpenAI-compatible /audio/speech — with model, voice, endpoint and key name; the length cap and
// timeout. Every other provider, persona and option is reported with its path and why.
import { isObj, type Obj, type Reporter } from './convert-types.ts';

const ONE_PROVIDER = 'clawfleet speaks through one OpenAI-compatible /audio/speech (tts.providers.openai, or its baseUrl for another server)';

/**
 * The clawfleet `tts` of one OpenClaw `tts` block, or undefined when nothing of it carries over.
 * `fleetWide`: the top-level block, which names OpenClaw's key fallback (OPENAI_API_KEY) when its
 * provider names none; an agent's own block leaves what it does not set to the defaults'.
 */
export function ttsOf(raw: unknown, at: string, r: Reporter, keyName: (value: string) => string | undefined, fleetWide: boolean): Obj | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw)) {
    r.skip(at, `${JSON.stringify(raw)} is not a tts block`);
    return undefined;
  }
  const out: Obj = {};
  // The mode: `auto`, or the legacy `enabled` OpenClaw's doctor migrates to it.
  if (raw.auto === 'off' || raw.auto === 'always' || raw.auto === 'inbound') out.auto = raw.auto;
  else if (raw.auto === 'tagged')
    r.skip(
      `${at}.auto`,
      '"tagged" (spoken where the model writes [[tts:…]] directives) is not supported; replies are spoken in the sessions that say /voice on',
    );
  else if (raw.auto !== undefined) r.skip(`${at}.auto`, `${JSON.stringify(raw.auto)} is not off, always, inbound or tagged`);
  else if (typeof raw.enabled === 'boolean') {
    out.auto = raw.enabled ? 'always' : 'off';
    r.note(`${at}.enabled: the legacy toggle is tts.auto "${out.auto}"`);
  }

  const providers = isObj(raw.providers) ? raw.providers : {};
  if (typeof raw.provider === 'string' && raw.provider !== 'openai') r.skip(`${at}.provider`, `"${raw.provider}" has no clawfleet equivalent: ${ONE_PROVIDER}`);
  for (const id of Object.keys(providers)) if (id !== 'openai') r.skip(`${at}.providers.${id}`, `no clawfleet equivalent: ${ONE_PROVIDER}`);
  // The direct `tts.openai` block is the spelling OpenClaw's doctor rewrites to providers.openai.
  const openai = isObj(providers.openai) ? providers.openai : isObj(raw.openai) ? raw.openai : undefined;
  const openaiAt = isObj(providers.openai) ? `${at}.providers.openai` : `${at}.openai`;
  if (openai) {
    if (typeof openai.model === 'string' && openai.model) out.model = openai.model;
    const voice = openai.speakerVoice ?? openai.voice ?? openai.voiceName;
    if (typeof voice === 'string' && voice) out.voice = voice;
    if (typeof openai.baseUrl === 'string' && /^https?:\/\//.test(openai.baseUrl)) out.baseUrl = openai.baseUrl;
    else if (openai.baseUrl !== undefined) r.skip(`${openaiAt}.baseUrl`, `${JSON.stringify(openai.baseUrl)} is not an http(s) URL`);
    if (typeof openai.apiKey === 'string') {
      out.apiKeySecret = keyName(openai.apiKey) ?? 'OPENAI_TTS_API_KEY';
      if (!keyName(openai.apiKey))
        r.note(`${openaiAt}.apiKey: set its value as the secret OPENAI_TTS_API_KEY of each agent that speaks (the value is not carried over)`);
    }
    for (const k of Object.keys(openai))
      if (!['model', 'speakerVoice', 'voice', 'voiceName', 'baseUrl', 'apiKey'].includes(k))
        r.skip(`${openaiAt}.${k}`, 'no clawfleet equivalent: the request carries model, voice, the text and response_format "opus" only');
  }
  if (!isObj(raw.openai) && raw.openai !== undefined) r.skip(`${at}.openai`, `${JSON.stringify(raw.openai)} is not a provider block`);
  // OpenClaw reads the key from OPENAI_API_KEY where the provider names none: the same name here.
  if (fleetWide && Object.keys(out).length > 0 && out.apiKeySecret === undefined) out.apiKeySecret = 'OPENAI_API_KEY';

  for (const [k, min, max] of [
    ['maxTextLength', 100, 4_096],
    ['timeoutMs', 1_000, 120_000],
  ] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) r.skip(`${at}.${k}`, `${JSON.stringify(v)} is not a whole number`);
    else {
      if (v < min || v > max) r.note(`${at}.${k}: ${v} is outside ${min}–${max}; clawfleet uses ${Math.min(max, Math.max(min, v))}`);
      out[k] = Math.min(max, Math.max(min, v));
    }
  }
  const reasons: Record<string, string> = {
    mode: 'clawfleet speaks the final reply only (OpenClaw\'s "final")',
    summaryModel: 'a longer reply is spoken up to its last sentence within maxTextLength, not summarized',
    persona: 'personas have no clawfleet equivalent (set voice and model)',
    personas: 'personas have no clawfleet equivalent (set voice and model)',
    modelOverrides: "the model's [[tts:…]] directives are not read",
    prefsPath: 'the /voice choice is kept per session in the transcript',
  };
  const known = new Set(['auto', 'enabled', 'provider', 'providers', 'openai', 'maxTextLength', 'timeoutMs']);
  for (const k of Object.keys(raw)) if (!known.has(k)) r.skip(`${at}.${k}`, reasons[k] ?? 'no clawfleet equivalent');
  return Object.keys(out).length ? out : undefined;
}
