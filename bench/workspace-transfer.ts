// What moving a workspace costs: a made-up workspace (many small notes, a few large files)
// copied locally (`workspace push|pull` without --aws), then staged into the emulator's S3
// and written out of it (the two halves of `--aws`), and each again when nothing changed
// (a rerun, as after an interruption: nothing is sent twice).
//   npx tsx bench/workspace-transfer.ts [smallFiles] [largeFiles] [largeMiB]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { copyWorkspace } from '../shared/adapters/fs/copy-workspace.ts';
import { applyStagedManifest, stageWorkspace } from '../shared/adapters/fs/staged-transfer.ts';
import { S3WorkspaceStaging, stagingS3Client } from '../shared/adapters/aws/s3-workspace-staging.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { systemClock } from '../shared/ports.ts';
import { emulator } from './emulator.ts';

const SMALL = Number(process.argv[2] ?? 1000);
const LARGE = Number(process.argv[3] ?? 4);
const LARGE_MIB = Number(process.argv[4] ?? 8);

const root = mkdtempSync(join(tmpdir(), 'cf-bench-ws-'));
const source = join(root, 'source');
mkdirSync(join(source, 'memory'), { recursive: true });
mkdirSync(join(source, 'files'), { recursive: true });
for (let i = 0; i < SMALL; i++) writeFileSync(join(source, 'memory', `note-${i}.md`), `# note ${i}\n\n${randomBytes(600).toString('base64')}\n`);
for (let i = 0; i < LARGE; i++) writeFileSync(join(source, 'files', `big-${i}.bin`), randomBytes(LARGE_MIB * 1024 * 1024));

const timed = async <T>(label: string, f: () => Promise<T>, describe: (r: T) => string) => {
  const t0 = performance.now();
  const r = await f();
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(34)} ${ms.toFixed(0).padStart(7)} ms  ${describe(r)}`);
  return { r, ms };
};

const opts = { agentId: 'bench', clock: systemClock, force: false };
const first = await timed(
  'local copy (fresh)',
  () => copyWorkspace(source, join(root, 'copy'), opts),
  (r) => `${r.created.length} files, ${formatBytes(r.bytesWritten)}`,
);
console.log(`  workspace: ${first.r.manifest.files.length} files, ${formatBytes(first.r.manifest.totalBytes)}`);
await timed(
  'local copy (again, unchanged)',
  () => copyWorkspace(source, join(root, 'copy'), opts),
  (r) => `${r.created.length + r.replaced.length} written, ${r.unchanged.length} unchanged`,
);

const emu = await emulator();
try {
  const s3 = stagingS3Client({ endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await s3.send(new CreateBucketCommand({ Bucket: 'bench-staging' }));
  const staging = new S3WorkspaceStaging(s3, 'bench-staging', 'bench/');
  const stage = { agentId: 'bench', clock: systemClock, staging };
  const staged = await timed(
    'stage into S3 (fresh)',
    () => stageWorkspace(source, stage),
    (r) => `${r.sent} sent (${formatBytes(r.sentBytes)})`,
  );
  await timed(
    'stage into S3 (rerun)',
    () => stageWorkspace(source, stage),
    (r) => `${r.sent} sent, ${r.alreadyStaged} already staged`,
  );
  const out = join(root, 'efs');
  await timed(
    'write out of S3 (fresh)',
    () => applyStagedManifest(out, staged.r.manifest, { staging, force: false }),
    (r) => `${r.created} created (${formatBytes(r.bytes)})`,
  );
  await timed(
    'write out of S3 (rerun)',
    () => applyStagedManifest(out, staged.r.manifest, { staging, force: false }),
    (r) => `${r.created + r.replaced} written, ${r.unchanged} unchanged`,
  );
  s3.destroy();
} finally {
  if (emu.proc?.pid) process.kill(-emu.proc.pid, 'SIGTERM');
}
