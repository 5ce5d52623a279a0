// The image's entry point (ENTRYPOINT ["node", "/app/dist/launch.mjs", "/usr/bin/tini", "--"]):
// PID 1 for an instant. ECS starts PID 1 with the task role's credentials settings in its
// environment, and /proc/1/environ would keep them for the task's life, whatever the runtime
// does with its own. So this hands them to the runtime through its state directory, as the
// runtime's own re-execution does (container-credentials.ts), and replaces itself with the rest
// of its command line — tini, then the runtime — in an environment without them.
import { createLogger, errorFields } from '../../shared/log.ts';
import { launchWithout } from './connection/container-credentials.ts';
import { runtimeStateDirOf } from './env.ts';

try {
  launchWithout(process.env, runtimeStateDirOf(process.env), process.argv.slice(2));
} catch (err) {
  createLogger({ component: 'runtime', agentId: process.env.CLAWFLEET_AGENT_ID }).error('runtime failed to start', errorFields(err));
  process.exit(1);
}
