// `tts` (agents.defaults and agents.list[]): spoken replies, OpenClaw's `tts` cut to the one
// provider shape it and most servers share, an OpenAI-compatible POST <baseUrl>/audio/speech
// asked for Ogg Opus (what Telegram plays as a voice message). Config holds the key's name,
// never the key; the runtime, which holds the agent's secret, synthesizes.
import * as z from '../zod.ts';
import { SecretNameSchema } from '../secrets/secret-values.ts';

/** Whose replies are spoken unless a session says otherwise with /voice: nobody's, everyone's, or answers to a voice message. */
export const TTS_AUTO_MODES = ['off', 'always', 'inbound'] as const;
export type TtsAuto = (typeof TTS_AUTO_MODES)[number];

export const TTS_DEFAULTS = {
  auto: 'off' as TtsAuto,
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini-tts',
  voice: 'coral',
  /** What is spoken of a longer reply: up to the last sentence end within it (the whole text still goes as text). */
  maxTextLength: 1_500,
  timeoutMs: 30_000,
} as const;

export const TtsSchema = z.strictObject({
  /** OpenClaw's `tts.auto`; "tagged" (spoken only where the model asks with [[tts]] tags) is refused by name. */
  auto: z.optional(
    z.enum(TTS_AUTO_MODES, {
      error: (issue) =>
        issue.input === 'tagged'
          ? '"tagged" (spoken only where the model writes [[tts:…]] directives) is not supported; use "off", "always" or "inbound", and /voice per session'
          : 'must be "off", "always" or "inbound"',
    }),
  ),
  /** The API root, e.g. "https://api.openai.com/v1" (the path /audio/speech is added); an operator's choice like a provider's baseUrl. */
  baseUrl: z.optional(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).check(
      z.refine((u) => {
        const url = new URL(u);
        return url.username === '' && url.password === '';
      }, 'must not carry credentials: the key is apiKeySecret, a name in the agent secret'),
    ),
  ),
  /** The speech model, e.g. "gpt-4o-mini-tts" or "tts-1". */
  model: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  /** The provider's voice name ("coral", "alloy"; OpenClaw's speakerVoice). */
  voice: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  /** Name of the value in this agent's secret that holds the API key (sent as a bearer token); none for a server without one. */
  apiKeySecret: z.optional(SecretNameSchema),
  /** The most characters spoken of one reply (100–4096, default 1500): a longer reply is spoken up to its last sentence end within it. */
  maxTextLength: z.optional(z.int().check(z.gte(100), z.lte(4_096))),
  /** How long one synthesis may take (1–120 s, default 30 s); past it the reply goes as text alone. */
  timeoutMs: z.optional(z.int().check(z.gte(1_000), z.lte(120_000))),
});
export type TtsConfig = z.infer<typeof TtsSchema>;
export type ResolvedTts = Required<Omit<TtsConfig, 'apiKeySecret'>> & Pick<TtsConfig, 'apiKeySecret'>;

/** An agent's `tts` merged key by key over the defaults' (as tools.media.audio is), or undefined when neither has one. */
export function mergeTts(defaults: TtsConfig | undefined, own: TtsConfig | undefined): TtsConfig | undefined {
  return defaults || own ? { ...defaults, ...own } : undefined;
}

/** Every setting with its default filled in. */
export function resolvedTts(tts: TtsConfig): ResolvedTts {
  return { ...TTS_DEFAULTS, ...tts };
}
