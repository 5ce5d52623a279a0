// The runtime's container health check, as the task definition carries it. ECS ignores a
// Dockerfile's HEALTHCHECK, so this repeats runtime-image/Dockerfile's, command and timing
// alike (test/infra/fleet-app.test.ts compares the two): healthy while the runtime's event
// loop keeps refreshing its health file (every 10 s), unhealthy once the file is a minute
// old, and an unhealthy essential container makes ECS replace the task.
import { Duration } from 'aws-cdk-lib';
import type * as ecs from 'aws-cdk-lib/aws-ecs';

/** Where the runtime writes the time (CLAWFLEET_HEALTH_FILE; the image sets the same). */
export const HEALTH_FILE = '/tmp/clawfleet-alive';

export const RUNTIME_HEALTH_CHECK: ecs.HealthCheck = {
  command: ['CMD', 'node', '-e', "const t=Number(require('fs').readFileSync(process.env.CLAWFLEET_HEALTH_FILE,'utf8'));process.exit(Date.now()-t<60000?0:1)"],
  interval: Duration.seconds(30),
  timeout: Duration.seconds(5),
  startPeriod: Duration.seconds(20),
  retries: 3,
};
