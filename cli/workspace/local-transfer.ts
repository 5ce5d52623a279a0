// `clawfleet workspace push|pull` on this machine: between a folder and the agent's
// workspace in the state directory (<state>/workspaces/<id>). With no fleet running, the
// state directory's lock keeps one from starting meanwhile; with one running, its admin API
// holds the agent (its runtime stopped, refused while it runs unless --hibernate) and
// releases it afterwards. Either way one writer has the workspace at a time.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { copyWorkspace, planCopy, type CopyPlan, type CopyProgress, type CopyResult } from '../../shared/adapters/fs/copy-workspace.ts';
import { measureWorkspace } from '../../shared/adapters/fs/staged-transfer.ts';
import { FileWorkspaceSyncLog } from '../../shared/adapters/local/file-workspace-sync-log.ts';
import { systemClock } from '../../shared/ports.ts';
import { formatBytes } from '../../shared/format-bytes.ts';
import { WorkspaceTransferError } from '../../shared/workspace/manifest.ts';
import { conflictLines } from '../../shared/workspace/plan.ts';
import type { TransferAction } from '../../shared/workspace/staging.ts';
import { readAdminFile } from '../../local/admin-file.ts';
import { lockStateDir } from '../../local/state-lock.ts';
import { holdStateUmask } from '../../local/state-modes.ts';
import { CliError, EXIT, plural, type CliIO } from '../command.ts';
import { localAdmin, type LocalAdmin } from '../local-admin.ts';

/** The CLI renews a local hold this often (the fleet releases one not renewed for 10 minutes). */
const LOCAL_RENEW_MS = 30_000;

export interface LocalTransferOptions {
  action: TransferAction;
  agentId: string;
  dir: string;
  stateDir: string;
  force: boolean;
  hibernate: boolean;
}

export async function localTransfer(opts: LocalTransferOptions, io: CliIO): Promise<CopyResult> {
  const stateDir = resolve(io.cwd, opts.stateDir);
  const dir = resolve(io.cwd, opts.dir);
  const workspace = join(stateDir, 'workspaces', opts.agentId);
  const [source, destination] = opts.action === 'push' ? [dir, workspace] : [workspace, dir];
  if (!existsSync(source) || !statSync(source).isDirectory()) {
    throw new CliError(
      EXIT.failed,
      opts.action === 'push' ? `${dir} is not a folder` : `${opts.agentId} has no workspace in ${stateDir} yet (no ${workspace})`,
    );
  }
  const releaseUmask = holdStateUmask(); // the fleet's modes: 0600 files, 0700 folders
  try {
    const admin = await runningFleet(stateDir, io);
    const progress = progressPrinter(io);
    let result: CopyResult;
    if (admin && opts.hibernate) {
      // Planned before the fleet holds (and with --hibernate stops) the agent: a conflict found now leaves it running.
      const planned = await planCopy(source, destination, copyOptions(opts, progress));
      if (planned.plan.conflicts.length) {
        throw new WorkspaceTransferError(
          'WORKSPACE_CONFLICT',
          `${destination} already holds files that differ; nothing was copied and ${opts.agentId} was left as it was:\n${conflictLines(planned.plan.conflicts)}`,
        );
      }
      // Planned again under the hold (the workspace may have changed meanwhile); a folder being pushed is scanned once.
      result = await viaFleet(admin, opts, () => copy(source, destination, opts, progress, opts.action === 'push' ? planned : undefined), io);
    } else if (admin) {
      // Without --hibernate the hold stops nothing: it is refused while the runtime runs.
      result = await viaFleet(admin, opts, () => copy(source, destination, opts, progress), io);
    } else result = await underLock(stateDir, () => copy(source, destination, opts, progress));
    const size = measureWorkspace(workspace);
    await new FileWorkspaceSyncLog(stateDir).record(opts.agentId, {
      direction: opts.action,
      at: systemClock.now(),
      files: result.manifest.files.length,
      bytes: result.manifest.totalBytes,
      workspaceFiles: size.files,
      workspaceBytes: size.bytes,
      where: dir,
    });
    return result;
  } finally {
    releaseUmask();
  }
}

/** Progress as lines on standard error: the scan's count once it is done, the writes as they go, a line at most every 2 s. */
function progressPrinter(io: CliIO): (p: CopyProgress) => void {
  let last = Date.now(); // a small transfer says only its totals
  return (p) => {
    const now = Date.now();
    if (now - last < 2_000 && p.files !== p.totalFiles) return;
    last = now;
    io.err(
      p.phase === 'scan'
        ? `  ${p.totalFiles === undefined ? 'scanning' : 'scanned'}: ${plural(p.files, 'file')} (${formatBytes(p.bytes)})`
        : `  writing: ${p.files}/${plural(p.totalFiles ?? 0, 'new or changed file')}, ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes ?? 0)}`,
    );
  };
}

const copyOptions = (opts: LocalTransferOptions, onProgress: (p: CopyProgress) => void) => ({
  agentId: opts.agentId,
  clock: systemClock,
  force: opts.force,
  onProgress,
});

function copy(source: string, destination: string, opts: LocalTransferOptions, progress: (p: CopyProgress) => void, planned?: CopyPlan): Promise<CopyResult> {
  if (opts.action === 'pull') mkdirSync(destination, { recursive: true, mode: 0o700 });
  return copyWorkspace(source, destination, copyOptions(opts, progress), planned);
}

/** The fleet running on the state directory, if one answers there. */
async function runningFleet(stateDir: string, io: CliIO): Promise<LocalAdmin | undefined> {
  if (!readAdminFile(stateDir)) return undefined;
  const admin = localAdmin(stateDir, io);
  try {
    await admin.get('/admin/status', z.unknown());
    return admin;
  } catch {
    return undefined; // an admin file left by a fleet that is gone: the lock decides
  }
}

async function underLock<T>(stateDir: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  let lock;
  try {
    lock = await lockStateDir(stateDir, { pid: process.pid, startedAt: Date.now() });
  } catch (err) {
    throw new CliError(EXIT.failed, `${(err as Error).message}\nNothing was transferred.`);
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

const HeldSchema = z.object({ state: z.literal('held'), from: z.string() });
const RenewSchema = z.object({ held: z.boolean() });
const ReleaseSchema = z.object({ outcome: z.enum(['asleep', 'woken', 'lost']) });

async function viaFleet<T>(admin: LocalAdmin, opts: LocalTransferOptions, work: () => Promise<T>, io: CliIO): Promise<T> {
  // The hold's id is this CLI's own: the fleet renews and releases only the hold that carries it.
  const holdId = randomUUID();
  const held = await admin.post(`/admin/agents/${opts.agentId}/hold`, { hibernate: opts.hibernate, holdId }, HeldSchema);
  io.err(
    `${opts.agentId} held by the running fleet for the transfer${held.from === 'asleep' || held.from === 'absent' ? '' : ` (it was ${held.from}: its runtime was stopped)`}`,
  );
  let lost = false;
  const renewal = setInterval(() => {
    admin.post(`/admin/agents/${opts.agentId}/renew`, { holdId }, RenewSchema).then(
      (r) => (lost ||= !r.held),
      () => (lost = true),
    );
  }, LOCAL_RENEW_MS);
  try {
    const result = await work();
    if (lost)
      throw new CliError(EXIT.failed, `the fleet let go of ${opts.agentId} during the transfer (it restarted, or the hold lapsed): run the transfer again`);
    return result;
  } finally {
    clearInterval(renewal);
    const { outcome } = await admin.post(`/admin/agents/${opts.agentId}/release`, { holdId }, ReleaseSchema).catch(() => ({ outcome: 'lost' as const }));
    io.err(
      outcome === 'woken'
        ? `${opts.agentId} released and woken`
        : outcome === 'asleep'
          ? `${opts.agentId} released (asleep)`
          : `${opts.agentId}: the fleet no longer held it`,
    );
  }
}
