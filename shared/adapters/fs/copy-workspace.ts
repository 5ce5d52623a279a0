// One workspace copied into another folder on this machine (the OpenClaw import, local
// `workspace push|pull`): scanned and hashed, planned against the destination (nothing
// written while any file conflicts), then each file written and verified. Running it again
// after an interruption writes only what is not there yet.
import type { Clock } from '../../ports.ts';
import { manifestOf, WorkspaceTransferError, type Manifest, type SkippedEntry } from '../../workspace/manifest.ts';
import { conflictLines, planWrites } from '../../workspace/plan.ts';
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

export async function copyWorkspace(source: string, destination: string, opts: CopyOptions): Promise<CopyResult> {
  const scan = await scanWorkspace(source, { ...opts, onFile: (p) => opts.onProgress?.({ phase: 'scan', ...p }) });
  const manifest = manifestOf(opts.agentId, opts.clock.now(), scan.files, scan.skipped);
  const plan = planWrites(manifest.files, await inspectTargets(destination, manifest.files), opts.force);
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
    skipped: scan.skipped,
    bytesWritten: bytes,
  };
}
