// A workspace through the staging area, both ways, as each end of a transfer does it: the
// sending end scans and hashes the folder, stages each body not staged yet (checked against
// its hash as it is read, so a file changed since the scan is never staged under the old
// hash) and returns the manifest; the receiving end plans the manifest against its folder
// (any conflict: nothing written), then writes each body, checked against the manifest. A
// body that arrives wrong is removed from staging, so running again sends it afresh.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { Clock } from '../../ports.ts';
import { manifestOf, MAX_DEPTH, MAX_ENTRIES, WorkspaceTransferError, type Manifest, type ManifestFile } from '../../workspace/manifest.ts';
import { conflictLines, planWrites, type WritePlan } from '../../workspace/plan.ts';
import type { WorkspaceStaging } from '../../workspace/staging.ts';
import { DirHandle } from './beneath.ts';
import { readWorkspaceFile, scanWorkspace, type ScanOptions } from './workspace-reader.ts';
import { inspectTargets, WorkspaceWriter } from './workspace-writer.ts';

export interface TransferProgress {
  phase: 'scanning' | 'uploading' | 'checking' | 'writing';
  files: number;
  bytes: number;
  totalFiles?: number | undefined;
  totalBytes?: number | undefined;
}

/** Bodies moved at once: enough to hide S3's latency, few enough for a 0.25 vCPU task. */
const CONCURRENCY = 4;

/** Runs `work` over `items`, a few at once; after a failure no new item starts, and it throws once those in flight have ended. */
async function pool<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
      while (!failure && next < items.length) {
        try {
          await work(items[next++]!);
        } catch (err) {
          failure ??= { err };
        }
      }
    }),
  );
  if (failure) throw failure.err;
}

/** Passes the bytes through, failing before the last byte is handed on if they are not the file's. */
async function* verified(chunks: AsyncIterable<Uint8Array>, file: ManifestFile, changed: string): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > file.size) throw new WorkspaceTransferError('FILE_CHANGED', `${file.path} ${changed}`);
    hash.update(chunk);
    if (size === file.size && hash.copy().digest('hex') !== file.sha256) throw new WorkspaceTransferError('FILE_CHANGED', `${file.path} ${changed}`);
    yield chunk;
  }
  if (size !== file.size || (size === 0 && hash.digest('hex') !== file.sha256)) throw new WorkspaceTransferError('FILE_CHANGED', `${file.path} ${changed}`);
}

export interface StageOptions {
  agentId: string;
  clock: Clock;
  staging: WorkspaceStaging;
  scan?: Omit<ScanOptions, 'onFile'> | undefined;
  onProgress?: ((p: TransferProgress) => void) | undefined;
  /** Awaited before each body is sent; throws to stop the transfer (its holder is gone). */
  checkpoint?: (() => Promise<void>) | undefined;
}

/** Scans `root` and stages every body that is not staged yet; returns the manifest and what was sent. */
export async function stageWorkspace(
  root: string,
  opts: StageOptions,
): Promise<{ manifest: Manifest; sent: number; sentBytes: number; alreadyStaged: number }> {
  const scan = await scanWorkspace(root, { ...opts.scan, onFile: (p) => opts.onProgress?.({ phase: 'scanning', ...p }) });
  const manifest = manifestOf(opts.agentId, opts.clock.now(), scan.files, scan.skipped);
  // The scan's last word, with its totals: the count of every file, not the first one said.
  const [n, size] = [manifest.files.length, manifest.totalBytes];
  opts.onProgress?.({ phase: 'scanning', files: n, bytes: size, totalFiles: n, totalBytes: size });
  const staged = await opts.staging.staged();
  const bySha = new Map<string, ManifestFile>();
  for (const f of manifest.files) if (staged.get(f.sha256) !== f.size && !bySha.has(f.sha256)) bySha.set(f.sha256, f);
  const todo = [...bySha.values()];
  const totalBytes = todo.reduce((n, f) => n + f.size, 0);
  let files = 0;
  let bytes = 0;
  await pool(todo, async (f) => {
    await opts.checkpoint?.();
    await opts.staging.put(f.sha256, f.size, verified(readWorkspaceFile(root, f.path), f, 'changed while it was being sent; run the transfer again'));
    files++;
    bytes += f.size;
    opts.onProgress?.({ phase: 'uploading', files, bytes, totalFiles: todo.length, totalBytes });
  });
  return { manifest, sent: todo.length, sentBytes: totalBytes, alreadyStaged: new Set(manifest.files.map((f) => f.sha256)).size - todo.length };
}

export interface ApplyOptions {
  staging: WorkspaceStaging;
  force: boolean;
  onProgress?: ((p: TransferProgress) => void) | undefined;
  /** Awaited before each file is written; throws to stop the transfer (its holder is gone). */
  checkpoint?: (() => Promise<void>) | undefined;
}

/**
 * What writing a manifest into `root` would do, reading `root` only: WORKSPACE_CONFLICT if any
 * file conflicts. The push's task runs it before it writes, and a check task (the agent still
 * running) before the CLI stops the agent.
 */
export async function planStagedManifest(root: string, manifest: Manifest, force: boolean): Promise<WritePlan> {
  const plan = planWrites(manifest.files, await inspectTargets(root, manifest.files), force);
  if (plan.conflicts.length) {
    throw new WorkspaceTransferError(
      'WORKSPACE_CONFLICT',
      `the workspace already holds files that differ; nothing was written:\n${conflictLines(plan.conflicts)}`,
    );
  }
  return plan;
}

/** Writes a staged manifest into `root`: nothing if any file conflicts; each body checked as it lands. */
export async function applyStagedManifest(
  root: string,
  manifest: Manifest,
  opts: ApplyOptions,
): Promise<{ created: number; replaced: number; unchanged: number; bytes: number }> {
  opts.onProgress?.({ phase: 'checking', files: 0, bytes: 0, totalFiles: manifest.files.length, totalBytes: manifest.totalBytes });
  const plan = await planStagedManifest(root, manifest, opts.force);
  const todo = [...plan.create.map((f) => ({ f, replace: false })), ...plan.replace.map((f) => ({ f, replace: true }))];
  const staged = await opts.staging.staged();
  const missing = todo.filter(({ f }) => staged.get(f.sha256) !== f.size);
  if (missing.length) {
    throw new WorkspaceTransferError(
      'STAGING_INCOMPLETE',
      `${missing.length} file(s) are not staged (${missing
        .slice(0, 3)
        .map(({ f }) => f.path)
        .join(', ')}…); nothing was written. Run the transfer again: it sends what is missing`,
    );
  }
  const writer = new WorkspaceWriter(root);
  const totalBytes = todo.reduce((n, t) => n + t.f.size, 0);
  let files = 0;
  let bytes = 0;
  await pool(todo, async ({ f, replace }) => {
    await opts.checkpoint?.();
    try {
      await writer.write(f, opts.staging.get(f.sha256), { replace });
    } catch (err) {
      // A body that is not what its name says: dropped, so the next run stages it again.
      if (err instanceof WorkspaceTransferError && err.code === 'FILE_CORRUPT') await opts.staging.remove([f.sha256]);
      throw err;
    }
    files++;
    bytes += f.size;
    opts.onProgress?.({ phase: 'writing', files, bytes, totalFiles: todo.length, totalBytes });
  });
  return { created: plan.create.length, replaced: plan.replace.length, unchanged: plan.same.length, bytes };
}

/** A workspace's regular files and their bytes, counted without reading them or following a link (at most `limit` entries). */
export function measureWorkspace(root: string, limit = MAX_ENTRIES): { files: number; bytes: number; complete: boolean } {
  const total = { files: 0, bytes: 0, complete: true };
  let seen = 0;
  const walk = (dir: DirHandle, depth: number): void => {
    for (const name of readdirSync(dir.listPath())) {
      if (++seen > limit) {
        total.complete = false;
        return;
      }
      let st;
      try {
        st = dir.lstatEntry(name);
      } catch {
        continue;
      }
      if (st.isFile()) {
        total.files++;
        total.bytes += st.size;
      } else if (st.isDirectory() && depth < MAX_DEPTH) {
        let child: DirHandle;
        try {
          child = dir.openChild(name, st);
        } catch {
          continue;
        }
        try {
          walk(child, depth + 1);
        } finally {
          child.close();
        }
        if (!total.complete) return;
      }
    }
  };
  const top = DirHandle.openRoot(root);
  try {
    walk(top, 0);
  } finally {
    top.close();
  }
  return total;
}
