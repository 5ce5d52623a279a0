// The deployed fleet's side of `clawfleet workspace --aws`: the transfer's ports on AWS
// (shared/adapters/aws/cli-workspace-transfer-ports.ts: the registry, λ compute, the agent's queue depth, its
// tasks, its prefix of the staging bucket its workspace task definition names), with the
// CLI's clock, pacing and voice.
import { randomBytes } from 'node:crypto';
import { workspaceTransferPorts } from '../../shared/adapters/aws/cli-workspace-transfer-ports.ts';
import { agentWorkspaceTaskFamily } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { awsSettings } from '../aws-env.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT, type CliIO } from '../command.ts';
import type { AwsTransferDeps } from './aws-transfer.ts';

export async function awsTransferDeps(config: FleetConfig, agentId: string, io: CliIO): Promise<AwsTransferDeps> {
  const settings = awsSettings(io);
  const ports = workspaceTransferPorts(settings, config.fleet);
  const family = agentWorkspaceTaskFamily(config.fleet, agentId);
  let bucket: string | undefined;
  try {
    bucket = await ports.stagingBucket(agentId);
  } catch (err) {
    throw new CliError(
      EXIT.failed,
      awsErrorText(`cannot read the task definition ${family} (deploy the agent's stack, ${config.fleet}-agent-${agentId}, first)`, err, settings),
    );
  }
  if (!bucket) throw new CliError(EXIT.failed, `the task definition ${family} names no staging bucket; redeploy the agent's stack`);
  return {
    lifecycle: { registry: ports.registry, compute: ports.compute, depths: ports.depths, clock: systemClock, log: memoryLogger() },
    tasks: ports.tasks,
    runner: ports.tasks,
    staging: ports.staging(bucket, agentId),
    syncLog: ports.syncLog,
    say: (line) => io.err(line),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    newTransferId: () => `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase()}-${randomBytes(4).toString('hex')}`,
    limits: { stopMs: 5 * 60_000, taskMs: 60 * 60_000, pollMs: 3_000 },
  };
}
