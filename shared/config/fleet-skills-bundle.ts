// The fleet's skills as one agent gets them on AWS: the files of the skill folders its allow
// list admits, packed at synth into one gzipped JSON object (a CDK file asset, see
// infra/fleet-skills-plan.ts) and unpacked by its runtime at start. One format, one set of limits
// (shared with local mode's copy, runtime-image/src/skills/fleet-skills.ts), and one check of
// every path, on both sides: nothing in a bundle can name a place outside the folder it is
// unpacked into.
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { ClawfleetError } from '../errors.ts';

/** What a fleet's skills may hold, locally (copied) and on AWS (packed): a file, all files, entries, folder depth. */
export const FLEET_SKILLS_LIMITS = { fileBytes: 1 << 20, totalBytes: 20 << 20, entries: 2_000, depth: 8 } as const;

export const FLEET_SKILLS_BUNDLE_FORMAT = 'clawfleet.fleet-skills/1';

/** A packed bundle is never larger than this (gzip of base64 of the files, which are at most totalBytes). */
export const FLEET_SKILLS_BUNDLE_MAX_BYTES = Math.ceil((FLEET_SKILLS_LIMITS.totalBytes * 4) / 3) + (8 << 20);

/**
 * Why a file or folder name cannot be carried: empty, "." or "..", a separator, a control
 * character, longer than a file system takes. Undefined when it can.
 */
export function unsafeNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `"${name}" is not a file name`;
  if (/[/\\]/.test(name)) return `"${name}" holds a path separator`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return `${JSON.stringify(name)} holds a control character`;
  if (Buffer.byteLength(name) > 255) return `"${name.slice(0, 40)}…" is longer than 255 bytes`;
  return undefined;
}

/** A relative path of safe names, at most depth + 1 (the skill's folder) + 1 (the file) deep. */
const BundlePathSchema = z
  .string()
  .max(4096)
  .superRefine((path, ctx) => {
    const parts = path.split('/');
    if (parts.length > FLEET_SKILLS_LIMITS.depth + 2) ctx.addIssue({ code: 'custom', message: `is nested deeper than ${FLEET_SKILLS_LIMITS.depth} folders` });
    for (const part of parts) {
      const problem = unsafeNameProblem(part);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: `is not a relative path of plain names (${problem})` });
        return;
      }
    }
  });

const BundleSchema = z.strictObject({
  format: z.literal(FLEET_SKILLS_BUNDLE_FORMAT),
  files: z.array(z.strictObject({ path: BundlePathSchema, executable: z.boolean(), data: z.base64() })).max(FLEET_SKILLS_LIMITS.entries),
});

export interface BundledFile {
  /** Relative to the skills folder: "<skill folder>/SKILL.md", "<skill folder>/scripts/run.sh". */
  path: string;
  executable: boolean;
  data: Uint8Array;
}

const invalid = (message: string) => new ClawfleetError('FLEET_SKILLS_INVALID', `fleet skills bundle: ${message}`);

/** The bundle's bytes; files sorted by path, so the same skills make the same bytes (and the same asset hash). */
export function encodeFleetSkillsBundle(files: readonly BundledFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const body = {
    format: FLEET_SKILLS_BUNDLE_FORMAT,
    files: sorted.map((f) => ({ path: f.path, executable: f.executable, data: Buffer.from(f.data).toString('base64') })),
  };
  // Checked on the way in too: synth must not pack what a runtime would refuse.
  checkFiles(BundleSchema.parse(body).files.map((f, i) => ({ path: f.path, size: sorted[i]!.data.byteLength })));
  // gzip's header carries no time from Node's zlib: the output depends on the input alone.
  return gzipSync(JSON.stringify(body), { level: 9 });
}

/** The files of a bundle, each path checked; throws FLEET_SKILLS_INVALID saying what is wrong. */
export function decodeFleetSkillsBundle(bytes: Uint8Array): BundledFile[] {
  let text: string;
  try {
    // Unpacked, no larger than packed could ever be: base64 of the files' limit, and room for the paths.
    text = gunzipSync(bytes, { maxOutputLength: FLEET_SKILLS_BUNDLE_MAX_BYTES }).toString('utf8');
  } catch (err) {
    throw invalid(`not gzip, or larger than the limit unpacked (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('not JSON');
  }
  const parsed = BundleSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(`${issue.path.join('.') || 'the top level'} ${issue.message}`);
  }
  const files = parsed.data.files.map((f) => ({ path: f.path, executable: f.executable, data: new Uint8Array(Buffer.from(f.data, 'base64')) }));
  checkFiles(files.map((f) => ({ path: f.path, size: f.data.byteLength })));
  return files;
}

function checkFiles(files: readonly { path: string; size: number }[]): void {
  const seen = new Set<string>();
  let total = 0;
  for (const f of files) {
    if (!f.path.includes('/')) throw invalid(`"${f.path}" is not inside a skill's folder`);
    // A path that is also another's folder ("a" and "a/b") would have one write through the other.
    if (seen.has(f.path)) throw invalid(`"${f.path}" is there twice`);
    seen.add(f.path);
    if (f.size > FLEET_SKILLS_LIMITS.fileBytes) throw invalid(`"${f.path}" is larger than ${FLEET_SKILLS_LIMITS.fileBytes >> 20} MB`);
    total += f.size;
  }
  if (total > FLEET_SKILLS_LIMITS.totalBytes) throw invalid(`its files hold more than ${FLEET_SKILLS_LIMITS.totalBytes >> 20} MB`);
  for (const path of seen) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (seen.has(folder)) throw invalid(`"${folder}" is both a file and a folder`);
    }
  }
}
