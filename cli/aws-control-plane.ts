// The control plane as the CLI drives it on AWS (`clawfleet cron run --aws`): the same
// composition as the Lambdas' (shared/control/control-plane.ts) over the same AWS adapters,
// with the operator's credentials. It wakes an agent as λ compute would, by setting its ECS
// service itself, as `clawfleet runtime wake --aws` does. Warnings go to standard error.
import { randomBytes, randomUUID } from 'node:crypto';
import { dynamoPorts, ecsComputePorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { pairingCode } from '../shared/control/access.ts';
import { ControlPlane } from '../shared/control/control-plane.ts';
import { createLogger } from '../shared/log.ts';
import { systemClock } from '../shared/ports.ts';
import type { AwsSettings } from './aws-env.ts';
import type { CliIO } from './command.ts';

export function awsOperatorControlPlane(config: FleetConfig, aws: AwsSettings, io: CliIO): ControlPlane {
  // Only what an operator must hear: a warning or an error, as one line.
  const log = createLogger({ component: 'cli' }, (line) => {
    const { level, msg, time: _time, component: _component, ...fields } = JSON.parse(line) as Record<string, unknown>;
    if (level !== 'info') io.err(`${level}: ${msg}${Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : ''}`);
  });
  return new ControlPlane(
    {
      config,
      clock: systemClock,
      log,
      component: 'cli',
      newId: () => randomUUID(),
      newPairingCode: () => pairingCode(randomBytes),
      secretsWhere: 'in Secrets Manager',
    },
    { ...dynamoPorts(aws), ...sqsPorts(aws), ...ecsComputePorts(aws) },
  );
}
