// One workspace copied into another folder on this machine (the OpenClaw import, local
// `workspace push|pull`): scanned and hashed, planned against the destination (nothing
// written while any file conflicts; planCopy alone writes nothing at all), then each file
// written and verified. Running it again after an interruption writes only what is not there yet.
import type { Clock } from '../../ports.ts';
import { manifestOf, WorkspaceTransferError, type Manifest, type SkippedEntry } from '../../workspace/manifest.ts';
import { conflictLines, planWrites, type WritePlan } from '../../workspace/plan.ts';
import { readWorkspaceFile, scanWorkspace, type ScanOptions } from './workspace-reader.ts';
import { inspectTargets, WorkspaceWriter } from './workspace-writer.ts';

export interface CopyProgress {
  phase: 'scan' | 'write';
  files: number;
  bytes: number;
  /** Known once the scan is done. */
  totalFiles?: number | undefined;
  totalBytes?: number | undefined;
}

export interface CopyOptions extends Omit<ScanOptions, 'onFile'> {
  agentId: string;
  clock: Clock;
  /** Replace files that exist with other content (and symlinks or FIFOs in the way). */
  force: boolean;
  onProgress?: ((p: CopyProgress) => void) | undefined;
}

export interface CopyResult {
  manifest: Manifest;
  created: string[];
  replaced: string[];
  /** Already there with the same content. */
  unchanged: string[];
  skipped: SkippedEntry[];
  bytesWritten: number;
}

/** What copying `source` into `destination` would do, decided before anything is written. */
export interface CopyPlan {
  manifest: Manifest;
  plan: WritePlan;
  skipped: SkippedEntry[];
}

/**
 * Scans `source` and plans it against `destination`, writing nothing: how a transfer finds a
 * conflict before it holds (and stops) the agent. `scanned` reuses a scan of a source that
 * cannot have changed since (a person's folder, not the agent's workspace).
 */
export async function planCopy(source: string, destination: string, opts: CopyOptions, scanned?: CopyPlan): Promise<CopyPlan> {
  let manifest = scanned?.manifest;
  let skipped = scanned?.skipped ?? [];
  if (!manifest) {
    const scan = await scanWorkspace(source, { ...opts, onFile: (p) => opts.onProgress?.({ phase: 'scan', ...p }) });
    manifest = manifestOf(opts.agentId, opts.clock.now(), scan.files, scan.skipped);
    skipped = scan.skipped;
    // The scan's last word, with its totals: the count of every file, not the first one said.
    opts.onProgress?.({
      phase: 'scan',
      files: manifest.files.length,
      bytes: manifest.totalBytes,
      totalFiles: manifest.files.length,
      totalBytes: manifest.totalBytes,
    });
  }
  return { manifest, skipped, plan: planWrites(manifest.files, await inspectTargets(destination, manifest.files), opts.force) };
}

/** Copies `source` into `destination` (planned afresh unless given a plan of a source that cannot have changed). */
export async function copyWorkspace(source: string, destination: string, opts: CopyOptions, scanned?: CopyPlan): Promise<CopyResult> {
  const { manifest, plan, skipped } = await planCopy(source, destination, opts, scanned);
  if (plan.conflicts.length) {
    throw new WorkspaceTransferError(
      'WORKSPACE_CONFLICT',
      `${destination} already holds files that differ; nothing was copied:\n${conflictLines(plan.conflicts)}`,
    );
  }
  const writer = new WorkspaceWriter(destination);
  const todo = [...plan.create.map((f) => ({ f, replace: false })), ...plan.replace.map((f) => ({ f, replace: true }))];
  const totalBytes = todo.reduce((n, t) => n + t.f.size, 0);
  let bytes = 0;
  for (const [i, { f, replace }] of todo.entries()) {
    await writer.write(f, readWorkspaceFile(source, f.path), { replace });
    bytes += f.size;
    opts.onProgress?.({ phase: 'write', files: i + 1, bytes, totalFiles: todo.length, totalBytes });
  }
  return {
    manifest,
    created: plan.create.map((f) => f.path),
    replaced: plan.replace.map((f) => f.path),
    unchanged: plan.same.map((f) => f.path),
    skipped,
    bytesWritten: bytes,
  };
}
