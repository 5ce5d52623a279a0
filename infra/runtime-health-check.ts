// The runtime's container health check, as the task definition carries it. ECS ignores a
// Dockerfile's HEALTHCHECK, so this repeats runtime-image/Dockerfile's, command and timing
// alike (test/infra/fleet-app.test.ts compares the two): healthy while the runtime's event
// loop keeps refreshing its health file (every 10 s), unhealthy once the file is a minute
// old, and an unhealthy essential container makes ECS replace the task. The start period is
// the kind's in its mode (shared/config/runtime-kinds.ts): the openclaw stage's HEALTHCHECK
// says the same as the managed mode's. ECS starts the check's process with the container's
// environment, the task role's credentials URI in it, and /proc/<pid>/environ would keep it
// there while node reads the file: `env -u` drops ECS's variables before node starts (the
// image's entry does the same for PID 1, runtime-image/src/launch.ts).
import { Duration } from 'aws-cdk-lib';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import { runtimeNeeds, type RuntimeChoice } from '../shared/config/runtime-kinds.ts';
import { ECS_CONTAINER_VARIABLES } from '../shared/ecs-container-variables.ts';

/** Where the runtime writes the time (CLAWFLEET_HEALTH_FILE; the image sets the same). */
export const HEALTH_FILE = '/tmp/clawfleet-alive';

export function runtimeHealthCheck(runtime: RuntimeChoice): ecs.HealthCheck {
  return {
    command: [
      'CMD',
      'env',
      ...ECS_CONTAINER_VARIABLES.flatMap((name) => ['-u', name]),
      'node',
      '-e',
      "const t=Number(require('fs').readFileSync(process.env.CLAWFLEET_HEALTH_FILE,'utf8'));process.exit(Date.now()-t<60000?0:1)",
    ],
    interval: Duration.seconds(30),
    timeout: Duration.seconds(5),
    startPeriod: Duration.seconds(runtimeNeeds(runtime).healthStartSeconds),
    retries: 3,
  };
}
