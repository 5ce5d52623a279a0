// What moves when a workspace moves: a manifest of its regular files (relative path, size,
// SHA-256, executable or not) and of what was left behind and why. Both ends of a transfer
// check every file against it, so a byte changed on the way, or a file swapped mid-copy,
// fails the transfer instead of landing. Paths are checked here, once, for every source:
// relative, normalized, no "..", no NUL, within the lengths a file system takes.
import { z } from 'zod';
import { ClawfleetError } from '../errors.ts';

/** Per file: a workspace holds notes, transcripts and the agent's own files, not disk images. */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;
/** All files together. */
export const DEFAULT_MAX_TOTAL_BYTES = 8 * 1024 * 1024 * 1024;
/** Entries visited (files, folders and whatever else) before a walk stops. */
export const MAX_ENTRIES = 200_000;
/** Folders deep. */
export const MAX_DEPTH = 64;

/** Our own in-progress files (written beside their target, renamed into place once verified); never copied. */
export const PARTIAL_MARK = '.cf-partial-';

const SEGMENT = /^(?!\.{1,2}$)[^/\0]{1,255}$/;

/** A path inside a workspace: relative, `/`-separated, normalized. */
export const WorkspacePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.split('/').every((s) => SEGMENT.test(s)), 'must be a relative path of names (no "", ".", "..", NUL or leading "/")');

export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a hex SHA-256');

export const ManifestFileSchema = z.strictObject({
  path: WorkspacePathSchema,
  size: z.number().int().min(0),
  sha256: Sha256Schema,
  /** Kept as the owner's execute bit (0700 rather than 0600), nothing more: modes are the destination's. */
  executable: z.boolean(),
});
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

export const SkippedEntrySchema = z.strictObject({ path: z.string().max(4096), reason: z.string().max(500) });
export type SkippedEntry = z.infer<typeof SkippedEntrySchema>;

export const ManifestSchema = z.strictObject({
  v: z.literal(1),
  /** Whose workspace (the agent id), so a manifest is never applied to another agent's. */
  agentId: z.string().regex(/^[a-z][a-z0-9-]{0,23}$/),
  createdAt: z.number(),
  files: z.array(ManifestFileSchema).max(MAX_ENTRIES),
  /** What the source held but the manifest does not carry, with why. */
  skipped: z.array(SkippedEntrySchema).max(MAX_ENTRIES),
  totalBytes: z.number().int().min(0),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** A workspace transfer that cannot go on; the message says what to do. */
export class WorkspaceTransferError extends ClawfleetError {
  override name = 'WorkspaceTransferError';
}

/** Builds a manifest, refusing one that names a path twice (a case the walk never makes, but a forged one might). */
export function manifestOf(agentId: string, createdAt: number, files: ManifestFile[], skipped: SkippedEntry[]): Manifest {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new WorkspaceTransferError('MANIFEST_INVALID', `the manifest names ${f.path} twice`);
    seen.add(f.path);
  }
  return ManifestSchema.parse({ v: 1, agentId, createdAt, files, skipped, totalBytes: files.reduce((n, f) => n + f.size, 0) });
}

/** Parses a manifest that came from elsewhere (staging, a task), for this agent only. */
export function parseManifest(input: unknown, agentId: string): Manifest {
  const parsed = ManifestSchema.safeParse(input);
  if (!parsed.success) {
    throw new WorkspaceTransferError(
      'MANIFEST_INVALID',
      `not a workspace manifest: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    );
  }
  if (parsed.data.agentId !== agentId)
    throw new WorkspaceTransferError('MANIFEST_OTHER_AGENT', `the manifest is agent "${parsed.data.agentId}"'s, not "${agentId}"'s`);
  return manifestOf(parsed.data.agentId, parsed.data.createdAt, parsed.data.files, parsed.data.skipped);
}

/** A path is also a prefix of other paths: two files "a" and "a/b" cannot both exist. */
export function pathClashes(files: readonly { path: string }[]): string[] {
  const paths = new Set(files.map((f) => f.path));
  const clashes: string[] = [];
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (paths.has(dir)) clashes.push(`${dir} is a file and also a folder of ${p}`);
    }
  }
  return clashes;
}
