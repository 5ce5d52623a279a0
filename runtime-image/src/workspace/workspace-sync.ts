// The runtime image's second entry (dist/workspace-sync.mjs): what the one-off workspace task
// runs (infra/constructs/agent-workspace-task.ts), with the agent's own task role and its
// access point mounted at /workspace. `pull` stages the workspace (its manifest last, so a
// manifest means every body is there); `push` writes a staged manifest into the workspace,
// each file checked against its hash; `check` plans a staged manifest against the workspace
// and writes nothing (it runs beside the agent's runtime, before a push stops it). It reports progress and its result as documents of the
// transfer, which the CLI reads, and exits 0 only when the transfer is done and verified.
import { z } from 'zod';
import { S3WorkspaceStaging, stagingS3Client } from '../../../shared/adapters/aws/s3-workspace-staging.ts';
import { applyStagedManifest, measureWorkspace, planStagedManifest, stageWorkspace } from '../../../shared/adapters/fs/staged-transfer.ts';
import { ClawfleetError, ConfigError, formatPath } from '../../../shared/errors.ts';
import { createLogger, errorFields } from '../../../shared/log.ts';
import { systemClock } from '../../../shared/ports.ts';
import { parseManifest, WorkspaceTransferError } from '../../../shared/workspace/manifest.ts';
import {
  KEEPALIVE_STALE_MS,
  TaskActionSchema,
  TransferIdSchema,
  type TransferResult,
  type TransferStatus,
  type WorkspaceStaging,
} from '../../../shared/workspace/staging.ts';

const EnvSchema = z.object({
  CLAWFLEET_AGENT_ID: z.string().regex(/^[a-z][a-z0-9-]{0,23}$/),
  CLAWFLEET_WORKSPACE: z.string().startsWith('/').default('/workspace'),
  CLAWFLEET_STAGING_BUCKET: z.string().min(3).max(63),
  CLAWFLEET_STAGING_PREFIX: z.string(),
  CLAWFLEET_SYNC_ACTION: TaskActionSchema,
  CLAWFLEET_SYNC_TRANSFER: TransferIdSchema,
  CLAWFLEET_SYNC_FORCE: z.enum(['0', '1']).default('0'),
  AWS_REGION: z.string().optional(),
  AWS_ENDPOINT_URL: z.url().optional(),
});

/** How often the task's progress is written while it works. */
const STATUS_EVERY_MS = 2_000;
/** How often, at most, the task looks whether its CLI still holds the agent. */
const KEEPALIVE_CHECK_MS = 30_000;

/**
 * The task's guard against outliving its holder: the CLI rewrites the transfer's keepalive
 * while it holds the agent; once it is older than KEEPALIVE_STALE_MS (by the store's clock
 * and the task's, both AWS's) the task stops before touching another file, well before
 * the hold's lease lapses and the agent could be woken onto a workspace being written.
 */
export function keepaliveCheck(staging: WorkspaceStaging, transfer: string, agentId: string, now: () => number): () => Promise<void> {
  let checkedAt = -Infinity;
  return async () => {
    if (now() - checkedAt < KEEPALIVE_CHECK_MS) return;
    const writtenAt = await staging.documentWrittenAt(transfer, 'keepalive');
    if (writtenAt === undefined || now() - writtenAt > KEEPALIVE_STALE_MS) {
      throw new WorkspaceTransferError(
        'HOLDER_GONE',
        `the CLI holding ${agentId} stopped renewing its keepalive${writtenAt === undefined ? '' : ` (${Math.round((now() - writtenAt) / 1000)} s ago)`}; the transfer stopped so the agent can be woken safely. Run it again: it resumes`,
      );
    }
    checkedAt = now();
  };
}

export type SyncEnv = z.infer<typeof EnvSchema>;

export function readSyncEnv(env: NodeJS.ProcessEnv): SyncEnv {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
      'workspace-sync environment',
    );
  // Its own prefix, whatever the task definition was told: a manifest or body of another agent is never read.
  if (parsed.data.CLAWFLEET_STAGING_PREFIX !== `${parsed.data.CLAWFLEET_AGENT_ID}/`) {
    throw new ConfigError(
      [{ path: 'CLAWFLEET_STAGING_PREFIX', message: `must be "${parsed.data.CLAWFLEET_AGENT_ID}/", the agent's own prefix` }],
      'workspace-sync environment',
    );
  }
  return parsed.data;
}

/** Runs one transfer; resolves with its result, which it has written to staging too. */
export async function runSync(
  env: SyncEnv,
  staging: WorkspaceStaging,
  log = createLogger({ component: 'workspace-sync', agentId: env.CLAWFLEET_AGENT_ID }),
): Promise<TransferResult> {
  const { CLAWFLEET_AGENT_ID: agentId, CLAWFLEET_WORKSPACE: workspace, CLAWFLEET_SYNC_TRANSFER: transfer, CLAWFLEET_SYNC_ACTION: action } = env;
  let progress: Omit<TransferStatus, 'at'> = { phase: 'scanning', files: 0, bytes: 0 };
  let writing: Promise<void> = Promise.resolve();
  const writeStatus = () => {
    writing = writing
      .then(() => staging.putDocument(transfer, 'status', { ...progress, at: systemClock.now() }))
      .catch((err) => log.warn('status not written', errorFields(err)));
  };
  const timer = setInterval(writeStatus, STATUS_EVERY_MS);
  log.info('workspace transfer started', { action, transfer });
  const checkpoint = keepaliveCheck(staging, transfer, agentId, () => systemClock.now());
  let result: TransferResult;
  try {
    await checkpoint();
    if (action === 'pull') {
      const staged = await stageWorkspace(workspace, { agentId, clock: systemClock, staging, checkpoint, onProgress: (p) => (progress = p) });
      // Last: a manifest in staging means every body it names is there.
      await staging.putDocument(transfer, 'manifest', staged.manifest);
      result = {
        ok: true,
        action,
        created: staged.sent,
        replaced: 0,
        unchanged: staged.alreadyStaged,
        workspaceFiles: staged.manifest.files.length,
        workspaceBytes: staged.manifest.totalBytes,
        at: systemClock.now(),
      };
    } else if (action === 'check') {
      // Reads the workspace only: the CLI asks before it stops a running agent for a push.
      const raw = await staging.getDocument(transfer, 'manifest');
      if (raw === undefined) throw new WorkspaceTransferError('MANIFEST_MISSING', `transfer ${transfer} has no manifest in staging`);
      progress = { phase: 'checking', files: 0, bytes: 0 };
      const plan = await planStagedManifest(workspace, parseManifest(raw, agentId), env.CLAWFLEET_SYNC_FORCE === '1');
      const size = measureWorkspace(workspace);
      result = {
        ok: true,
        action,
        created: plan.create.length,
        replaced: plan.replace.length,
        unchanged: plan.same.length,
        workspaceFiles: size.files,
        workspaceBytes: size.bytes,
        at: systemClock.now(),
      };
    } else {
      const raw = await staging.getDocument(transfer, 'manifest');
      if (raw === undefined) throw new WorkspaceTransferError('MANIFEST_MISSING', `transfer ${transfer} has no manifest in staging`);
      const manifest = parseManifest(raw, agentId);
      const applied = await applyStagedManifest(workspace, manifest, {
        staging,
        force: env.CLAWFLEET_SYNC_FORCE === '1',
        checkpoint,
        onProgress: (p) => (progress = p),
      });
      const size = measureWorkspace(workspace);
      result = {
        ok: true,
        action,
        created: applied.created,
        replaced: applied.replaced,
        unchanged: applied.unchanged,
        workspaceFiles: size.files,
        workspaceBytes: size.bytes,
        at: systemClock.now(),
      };
    }
  } catch (err) {
    const code = err instanceof ClawfleetError ? err.code : 'SYNC_FAILED';
    result = { ok: false, action, code, error: (err as Error).message.slice(0, 4000), at: systemClock.now() };
    log.error('workspace transfer failed', { action, transfer, ...errorFields(err) });
  } finally {
    clearInterval(timer);
  }
  progress = { ...progress, phase: 'done' };
  writeStatus();
  await writing;
  await staging.putDocument(transfer, 'result', result);
  if (result.ok)
    log.info('workspace transfer done', {
      action,
      transfer,
      created: result.created,
      replaced: result.replaced,
      unchanged: result.unchanged,
      workspaceBytes: result.workspaceBytes,
    });
  return result;
}

async function main(): Promise<void> {
  const env = readSyncEnv(process.env);
  const s3 = stagingS3Client({ region: env.AWS_REGION, endpoint: env.AWS_ENDPOINT_URL });
  const result = await runSync(env, new S3WorkspaceStaging(s3, env.CLAWFLEET_STAGING_BUCKET, env.CLAWFLEET_STAGING_PREFIX));
  process.exit(result.ok ? 0 : 1);
}

// Run as the image's entry; imported (tests), it only exports.
if (process.argv[1] && /workspace-sync\.(mjs|ts)$/.test(process.argv[1])) {
  main().catch((err) => {
    createLogger({ component: 'workspace-sync', agentId: process.env.CLAWFLEET_AGENT_ID }).error('workspace transfer could not start', errorFields(err));
    process.exit(2);
  });
}
