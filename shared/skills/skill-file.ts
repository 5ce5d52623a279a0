// A SKILL.md as OpenClaw and AgentSkills write it: YAML front matter (name, description,
// and OpenClaw's load-time requirements under metadata.openclaw) above Markdown
// instructions. Unknown keys are kept out of the way, not refused: skills from ClawHub
// carry fields (emoji, install, homepage) clawfleet has no use for.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const names = z.array(z.string().min(1).max(200)).max(50);

const RequirementsSchema = z.looseObject({
  /** Every one of these programs on PATH. */
  bins: names.optional(),
  /** At least one of these programs on PATH. */
  anyBins: names.optional(),
  /** Environment values the skill's scripts read. */
  env: names.optional(),
  /** OpenClaw config paths that must be set. */
  config: names.optional(),
});

const OpenClawMetadataSchema = z.looseObject({
  requires: RequirementsSchema.optional(),
  /** process.platform values: darwin, linux, win32. */
  os: names.optional(),
});

export const SkillFrontMatterSchema = z.looseObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be a skill name like "weather" (letters, digits, "-", "_", ".")')
    .optional(),
  description: z.string().min(1, 'must not be empty').max(2_000),
  metadata: z
    .looseObject({
      // OpenClaw reads its block under any of its past names.
      openclaw: OpenClawMetadataSchema.optional(),
      clawdbot: OpenClawMetadataSchema.optional(),
      clawdis: OpenClawMetadataSchema.optional(),
    })
    .optional(),
});

export type SkillRequirements = z.infer<typeof RequirementsSchema> & { os?: string[] | undefined };

export interface SkillFile {
  name: string | undefined;
  description: string;
  requires: SkillRequirements;
}

/** Parses a SKILL.md's front matter; throws an Error whose message says what is wrong. */
export function parseSkillFile(text: string): SkillFile {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw new Error('has no front matter (a block between "---" lines at the top, with name and description)');
  let data: unknown;
  try {
    // No custom tags, no aliases beyond a few: the file is the agent's or a stranger's.
    data = parseYaml(match[1]!, { maxAliasCount: 10, customTags: [] });
  } catch (err) {
    throw new Error(`has front matter that is not YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = SkillFrontMatterSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `has front matter whose ${issue.path.join('.') || 'top level'} ${issue.code === 'invalid_type' && issue.path.length === 1 ? `is missing or not ${issue.expected}` : issue.message}`,
    );
  }
  const meta = parsed.data.metadata;
  const oc = meta?.openclaw ?? meta?.clawdbot ?? meta?.clawdis;
  return {
    name: parsed.data.name,
    description: parsed.data.description.replace(/\s+/g, ' ').trim(),
    requires: { ...oc?.requires, ...(oc?.os ? { os: oc.os } : {}) },
  };
}
