// `clawfleet workspace push|pull --aws`, step by step, over ports (tests run it with the
// emulator's S3 and DynamoDB and the workspace-sync entry run as a process; ECS only
// records a RunTask there). The agent is held (registry, then λ compute) for exactly as
// long as its workspace on EFS is read or written, and released whatever happens; its
// runtime tasks must all be gone before the one-off task starts. Both ends check every
// file against the manifest, and what already arrived is never sent again.
import { randomUUID } from 'node:crypto';
import { isErrorCode } from '../../shared/http/error-status.ts';
import { checkHoldable, HOLD_RENEW_MS, holdAgent, HoldRefused, releaseHold, renewHold, RESTING, type Hold } from '../../shared/control/workspace-hold.ts';
import type { LifecycleDeps } from '../../shared/control/lifecycle.ts';
import { applyStagedManifest, stageWorkspace, type TransferProgress } from '../../shared/adapters/fs/staged-transfer.ts';
import { formatBytes } from '../../shared/format-bytes.ts';
import { parseManifest, WorkspaceTransferError, type Manifest } from '../../shared/workspace/manifest.ts';
import { TransferResultSchema, TransferStatusSchema, type TaskAction, type TransferAction, type WorkspaceStaging } from '../../shared/workspace/staging.ts';
import { plural } from '../command.ts';
import type { WorkspaceSyncLog } from '../../shared/workspace/sync-log.ts';
import type { AgentTasks, WorkspaceTaskRunner } from '../../shared/workspace/task-runner.ts';

export interface AwsTransferDeps {
  lifecycle: LifecycleDeps;
  tasks: AgentTasks;
  runner: WorkspaceTaskRunner;
  staging: WorkspaceStaging;
  syncLog: WorkspaceSyncLog;
  say(line: string): void;
  sleep(ms: number): Promise<void>;
  newTransferId(): string;
  /** Resolves when the operator asks the command to stop (Ctrl-C): the task is stopped and the agent released. */
  interrupted?: (() => Promise<string>) | undefined;
  /** How long to wait for the runtime to stop, and for the task; how often to look. */
  limits: { stopMs: number; taskMs: number; pollMs: number };
}

export interface TransferOptions {
  force: boolean;
  hibernate: boolean;
}

export interface TransferSummary {
  action: TransferAction;
  files: number;
  bytes: number;
  created: number;
  replaced: number;
  unchanged: number;
  sent: number;
  workspaceFiles: number;
  workspaceBytes: number;
}

/** A progress line: a scan's running count then its total, what is checked, what is sent or written of how many. */
const progressLine = (p: TransferProgress): string => {
  if (p.phase === 'scanning') return `${p.totalFiles === undefined ? 'scanning' : 'scanned'}: ${plural(p.files, 'file')} (${formatBytes(p.bytes)})`;
  if (p.phase === 'checking')
    return p.totalFiles === undefined
      ? `checking: ${plural(p.files, 'file')}`
      : `checking ${plural(p.totalFiles, 'file')} (${formatBytes(p.totalBytes ?? 0)}) against the workspace`;
  return `${p.phase}: ${p.files}/${plural(p.totalFiles ?? 0, 'file')}, ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes ?? 0)}`;
};

/** Says progress at most every few seconds, and always the last (a small transfer says only its totals). */
function throttled(say: (line: string) => void, now: () => number, everyMs = 2_000): (p: TransferProgress) => void {
  let last = now();
  return (p) => {
    const t = now();
    if (t - last >= everyMs || p.files === p.totalFiles) {
      last = t;
      say(`  ${progressLine(p)}`);
    }
  };
}

/** Local folder → staging → the agent's workspace on EFS. */
export async function pushToAws(agentId: string, localDir: string, opts: TransferOptions, deps: AwsTransferDeps): Promise<TransferSummary> {
  // Refused now rather than after the upload, if the hold would be refused (it is checked again when taken).
  const from = await checkHoldable(agentId, opts, deps.lifecycle);
  const transfer = deps.newTransferId();
  deps.say(`staging ${localDir} for ${agentId} (transfer ${transfer})…`);
  // Sent before the hold: the agent keeps running while its new workspace uploads.
  const staged = await stageWorkspace(localDir, {
    agentId,
    clock: deps.lifecycle.clock,
    staging: deps.staging,
    onProgress: throttled(deps.say, () => deps.lifecycle.clock.now()),
  });
  const { manifest } = staged;
  for (const s of manifest.skipped) deps.say(`  skipped ${s.path}: ${s.reason}`);
  deps.say(
    `staged: ${manifest.files.length} files (${formatBytes(manifest.totalBytes)}); sent ${staged.sent} now (${formatBytes(staged.sentBytes)}), ${staged.alreadyStaged} were staged already`,
  );
  await deps.staging.putDocument(transfer, 'manifest', manifest);
  // The hold stops a running agent (--hibernate): a conflict is looked for first, so it is never stopped for nothing.
  if (!RESTING.includes(from) && !opts.force) await checkBeforeStopping(agentId, manifest, deps);
  const result = await withHold(agentId, transfer, opts, deps, (check) => runTask(agentId, { action: 'push', transfer, force: opts.force }, check, deps));
  if (result.created + result.replaced + result.unchanged !== manifest.files.length) {
    throw new WorkspaceTransferError(
      'TRANSFER_UNVERIFIED',
      `the task accounted for ${result.created + result.replaced + result.unchanged} of the manifest's ${manifest.files.length} files; the staged copy is kept: run the push again`,
    );
  }
  const summary: TransferSummary = {
    action: 'push',
    files: manifest.files.length,
    bytes: manifest.totalBytes,
    created: result.created,
    replaced: result.replaced,
    unchanged: result.unchanged,
    sent: staged.sent,
    workspaceFiles: result.workspaceFiles,
    workspaceBytes: result.workspaceBytes,
  };
  await finish(agentId, transfer, manifest, summary, 'AWS', deps);
  return summary;
}

/**
 * Plans the staged manifest against the agent's workspace with a task that writes nothing, while
 * the agent still runs. A conflict refuses the push here; a check that cannot run (a runtime
 * image from before checks) is said and skipped, since the push's own task checks again.
 */
async function checkBeforeStopping(agentId: string, manifest: Manifest, deps: AwsTransferDeps): Promise<void> {
  const check = deps.newTransferId();
  deps.say(`checking ${plural(manifest.files.length, 'file')} against ${agentId}'s workspace before stopping it (transfer ${check})…`);
  await deps.staging.putDocument(check, 'manifest', manifest);
  // The task stops without a keepalive from its CLI; nothing holds the agent, but this CLI is here.
  await deps.staging.putDocument(check, 'keepalive', { at: deps.lifecycle.clock.now() });
  try {
    await runTask(agentId, { action: 'check', transfer: check, force: false }, () => undefined, deps);
  } catch (err) {
    if (err instanceof WorkspaceTransferError && err.code === 'WORKSPACE_CONFLICT') {
      // The task's first line is its own; the conflicts follow it.
      const conflicts = err.message.split('\n').slice(1).join('\n');
      throw new WorkspaceTransferError(
        'WORKSPACE_CONFLICT',
        `${agentId}'s workspace already holds files that differ; nothing was sent to it and ${agentId} was left running:\n${conflicts}`,
      );
    }
    deps.say(`  could not check beforehand (${(err as Error).message.split('\n')[0]}); the push's own task checks again`);
  } finally {
    await deps.staging.removeTransfer(check).catch(() => undefined);
  }
}

/** The agent's workspace on EFS → staging → a local folder. */
export async function pullFromAws(agentId: string, localDir: string, opts: TransferOptions, deps: AwsTransferDeps): Promise<TransferSummary> {
  const transfer = deps.newTransferId();
  deps.say(`pulling ${agentId}'s workspace (transfer ${transfer})…`);
  const result = await withHold(agentId, transfer, opts, deps, (check) => runTask(agentId, { action: 'pull', transfer, force: false }, check, deps));
  // Released already: the local copy is written while the agent is back at work.
  const manifest = parseManifest(await deps.staging.getDocument(transfer, 'manifest'), agentId);
  for (const s of manifest.skipped) deps.say(`  skipped on EFS ${s.path}: ${s.reason}`);
  deps.say(`writing ${manifest.files.length} files (${formatBytes(manifest.totalBytes)}) into ${localDir}…`);
  const applied = await applyStagedManifest(localDir, manifest, {
    staging: deps.staging,
    force: opts.force,
    onProgress: throttled(deps.say, () => deps.lifecycle.clock.now()),
  });
  const summary: TransferSummary = {
    action: 'pull',
    files: manifest.files.length,
    bytes: manifest.totalBytes,
    created: applied.created,
    replaced: applied.replaced,
    unchanged: applied.unchanged,
    sent: result.created,
    workspaceFiles: manifest.files.length,
    workspaceBytes: manifest.totalBytes,
  };
  await finish(agentId, transfer, manifest, summary, localDir, deps);
  return summary;
}

async function finish(agentId: string, transfer: string, manifest: Manifest, s: TransferSummary, where: string, deps: AwsTransferDeps): Promise<void> {
  await deps.syncLog.record(agentId, {
    direction: s.action,
    at: deps.lifecycle.clock.now(),
    files: s.files,
    bytes: s.bytes,
    workspaceFiles: s.workspaceFiles,
    workspaceBytes: s.workspaceBytes,
    where,
  });
  // Verified at both ends: the staged copy has done its job (a copy left by a failed transfer expires within a week).
  await deps.staging.remove([...new Set(manifest.files.map((f) => f.sha256))]);
  await deps.staging.removeTransfer(transfer);
}

/**
 * Holds the agent, waits until none of its runtime tasks is alive, runs `work`, releases it.
 * While held it renews the hold and the transfer's keepalive (a task whose CLI died stops on
 * its own, before the lease lapses), and a Ctrl-C stops the task and releases the agent.
 */
async function withHold<T>(
  agentId: string,
  transfer: string,
  opts: TransferOptions,
  deps: AwsTransferDeps,
  work: (check: () => void) => Promise<T>,
): Promise<T> {
  // The hold's id is this CLI's own: a hold that lapses and is retaken by another transfer is no longer ours to renew or release.
  const hold: Hold = await holdAgent(agentId, { hibernate: opts.hibernate, holdId: randomUUID() }, deps.lifecycle);
  deps.say(`${agentId} held for the transfer${hold.from === 'asleep' || hold.from === 'absent' ? '' : ` (it was ${hold.from}: stopping it)`}`);
  let lost = false;
  let stopAsked: string | undefined;
  void deps.interrupted?.().then((why) => (stopAsked = why));
  const keepalive = () => deps.staging.putDocument(transfer, 'keepalive', { at: deps.lifecycle.clock.now() });
  const renewal = setInterval(() => {
    renewHold(hold, deps.lifecycle).then(
      (kept) => (lost ||= !kept),
      () => undefined, // a failed renewal is retried; the lease outlasts several
    );
    keepalive().catch(() => undefined); // likewise: the task allows several missed ones
  }, HOLD_RENEW_MS);
  const check = () => {
    if (stopAsked) throw new WorkspaceTransferError('INTERRUPTED', `stopped (${stopAsked}); ${agentId} was released. Run the transfer again: it resumes`);
    if (lost)
      throw new HoldRefused(
        'HOLD_LOST',
        `the hold on ${agentId} was lost (its lease lapsed, or someone released it); the transfer stopped. Run it again: it resumes`,
      );
  };
  try {
    await keepalive();
    const deadline = deps.lifecycle.clock.now() + deps.limits.stopMs;
    for (let alive = await deps.tasks.alive(agentId); alive > 0; alive = await deps.tasks.alive(agentId)) {
      check();
      if (deps.lifecycle.clock.now() > deadline)
        throw new WorkspaceTransferError(
          'RUNTIME_STILL_RUNNING',
          `${agentId} still has ${alive} runtime task(s) after ${Math.round(deps.limits.stopMs / 1000)} s; nothing was transferred`,
        );
      deps.say(`  waiting for ${alive} runtime task(s) of ${agentId} to stop…`);
      await deps.sleep(deps.limits.pollMs);
    }
    return await work(check);
  } finally {
    clearInterval(renewal);
    const outcome = await releaseHold(hold, deps.lifecycle);
    deps.say(
      outcome === 'woken' ? `${agentId} released and woken` : outcome === 'asleep' ? `${agentId} released (asleep)` : `${agentId}: its hold had already ended`,
    );
  }
}

/** Starts the task, reports its progress until it stops, and returns its verified result. */
async function runTask(agentId: string, run: { action: TaskAction; transfer: string; force: boolean }, check: () => void, deps: AwsTransferDeps) {
  check();
  const task = await deps.runner.start(agentId, run);
  deps.say(`  workspace task ${task.split('/').pop()} started`);
  const deadline = deps.lifecycle.clock.now() + deps.limits.taskMs;
  let lastSaid = '';
  for (;;) {
    const state = await deps.runner.state(task);
    if (state.done) {
      const result = TransferResultSchema.safeParse(await deps.staging.getDocument(run.transfer, 'result'));
      if (!result.success)
        throw new WorkspaceTransferError(
          'TASK_FAILED',
          `the workspace task stopped (${state.reason}, exit ${state.exitCode ?? '?'}) without a result; see its log (stream prefix "workspace")`,
        );
      if (!result.data.ok)
        throw new WorkspaceTransferError(isErrorCode(result.data.code) ? result.data.code : 'TASK_FAILED', `the workspace task failed: ${result.data.error}`);
      if (state.exitCode !== 0)
        throw new WorkspaceTransferError('TASK_FAILED', `the workspace task stopped with exit ${state.exitCode ?? '?'} (${state.reason})`);
      return result.data;
    }
    try {
      check();
      if (deps.lifecycle.clock.now() > deadline)
        throw new WorkspaceTransferError('TASK_TIMEOUT', `the workspace task ran past ${Math.round(deps.limits.taskMs / 60_000)} minutes`);
    } catch (err) {
      await deps.runner.stop(task, (err as Error).message).catch(() => undefined);
      throw err;
    }
    const status = TransferStatusSchema.safeParse(await deps.staging.getDocument(run.transfer, 'status').catch(() => undefined));
    const line = status.success ? progressLine(status.data as TransferProgress) : `task ${state.status.toLowerCase()}`;
    if (line !== lastSaid) deps.say(`  ${line}`);
    lastSaid = line;
    await deps.sleep(deps.limits.pollMs);
  }
}
