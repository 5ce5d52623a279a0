// After `clawfleet secrets set --agent <id>`: restart the agent so its runtime reads the secret
// again now. A runtime waiting for the value starts at once instead of at its next read (up to
// a minute on AWS; locally the values reach a runtime only when it starts). On AWS the CLI asks
// λ compute, the one holder of ECS power, which follows the registry: a running or waiting
// agent gets a new task, a sleeping one stays asleep and reads the secret when it next wakes.
import { resolve } from 'node:path';
import { z } from 'zod';
import { readAdminFile } from '../local/admin-file.ts';
import { functionName } from '../shared/config/names.ts';
import { ClawfleetError } from '../shared/errors.ts';
import type { AwsSettings } from './aws-env.ts';
import type { CliIO } from './command.ts';
import { localAdmin } from './local-admin.ts';

/** Asks for the restart and says what happened; a failed ask is a note, not a failure: the value is stored already. */
export async function restartAfterSecretSet(fleet: string, agentId: string, where: { aws: AwsSettings } | { stateDir: string }, io: CliIO): Promise<void> {
  if ('aws' in where) {
    // The SDK loads only for --aws.
    const [{ SignedLambdaInvoker }, { LambdaAgentCompute }] = await Promise.all([
      import('../shared/adapters/aws/signed-lambda-invoker.ts'),
      import('../shared/adapters/aws/lambda-agent-compute.ts'),
    ]);
    const holder = functionName(fleet, 'compute');
    try {
      await new LambdaAgentCompute(new SignedLambdaInvoker(where.aws), holder).restart(agentId);
      io.out(
        `asked ${holder} to restart ${agentId}: a running (or waiting) runtime is replaced and reads the secret as it starts; a sleeping one reads it when it next wakes`,
      );
    } catch (err) {
      if (!(err instanceof ClawfleetError)) throw err;
      io.err(
        `note: ${err.message}. A runtime waiting for this value finds it within a minute on its own; to restart it now: clawfleet runtime restart --agent ${agentId} --aws`,
      );
    }
    return;
  }
  const dir = resolve(io.cwd, where.stateDir);
  if (!readAdminFile(dir)) {
    io.out(`no local fleet is running on ${dir}: ${agentId} reads the value when it starts`);
    return;
  }
  try {
    const { state } = await localAdmin(where.stateDir, io).post(`/admin/agents/${agentId}/restart`, {}, z.object({ state: z.string() }));
    io.out(`restarted ${agentId} in the running fleet (${state}): its new runtime reads the secrets file`);
  } catch (err) {
    io.err(
      `note: could not restart ${agentId} in the running fleet (${(err as Error).message}); restart it with: clawfleet runtime restart --agent ${agentId}`,
    );
  }
}
