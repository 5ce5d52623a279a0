// The control plane of one Lambda container: its environment read and checked once, the fleet
// config parsed, and the shared composition (shared/control/control-plane.ts) over the AWS
// port groups the handler names, so the handler's bundle holds only the SDK clients it uses.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as z from '../shared/zod.ts';
import { lambdaComputePorts, mediaPorts } from '../shared/adapters/aws/control-ports.ts';
import { parseConfigTextLazily } from '../shared/config/load-lazily.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { pairingCode } from '../shared/control/access.ts';
import { ControlPlane, type PortFactories } from '../shared/control/control-plane.ts';
import { ClawfleetError, formatPath } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import { systemClock, type AgentCompute } from '../shared/ports.ts';

/** A variable the CDK app sets or leaves out, never sets empty. */
const setting = z.optional(z.string().check(z.minLength(1)));

/** What the CDK app (infra/constructs/control-functions.ts) puts in a function's environment. */
const LambdaEnvSchema = z.object({
  /** The fleet config inline (tests); otherwise the file bundled beside the handler. */
  CLAWFLEET_CONFIG: setting,
  CLAWFLEET_CONFIG_FILE: setting,
  /** λ compute's name: the one function that may change agents' ECS services. */
  CLAWFLEET_COMPUTE_FUNCTION: setting,
  /** λ outbox: where agents' own cron jobs are scheduled, and the role Scheduler invokes with. */
  CLAWFLEET_CRON_FUNCTION_ARN: setting,
  CLAWFLEET_SCHEDULER_ROLE_ARN: setting,
  CLAWFLEET_SCHEDULES_DLQ_ARN: setting,
  /** λ telegram-webhook and λ outbox: the fleet's media bucket (#16); absent, attachments arrive as notes and file envelopes are refused. */
  CLAWFLEET_MEDIA_BUCKET: setting,
});
export type LambdaEnv = z.infer<typeof LambdaEnvSchema>;

export function lambdaEnv(env: NodeJS.ProcessEnv): LambdaEnv {
  const parsed = LambdaEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ');
  throw new ClawfleetError('LAMBDA_ENV_INVALID', `the function's environment is not what the CDK app sets: ${reason}`);
}

/** The fleet config: inline JSON (CLAWFLEET_CONFIG) or a file bundled beside the handler. */
function readConfig(env: LambdaEnv): Promise<FleetConfig> {
  if (env.CLAWFLEET_CONFIG) return parseConfigTextLazily(env.CLAWFLEET_CONFIG, 'CLAWFLEET_CONFIG');
  const path = env.CLAWFLEET_CONFIG_FILE ?? new URL('./clawfleet.json', import.meta.url).pathname;
  return parseConfigTextLazily(readFileSync(path, 'utf8'), path);
}

/**
 * The control plane of the Lambda `component`, over the port groups `ports` names for this
 * environment. Awaited at the handler's top level, in Lambda's init phase: the config parsed
 * there has been checked at deploy, so what words a bad one's problems loads only if it is bad.
 */
export async function awsControlPlane(
  component: string,
  ports: (env: LambdaEnv) => PortFactories[],
  rawEnv: NodeJS.ProcessEnv = process.env,
): Promise<ControlPlane> {
  const env = lambdaEnv(rawEnv);
  const config = await readConfig(env);
  return new ControlPlane(
    {
      config,
      clock: systemClock,
      log: createLogger({ component, fleet: config.fleet }),
      component,
      newId: () => randomUUID(),
      newPairingCode: () => pairingCode(randomBytes),
      secretsWhere: 'in Secrets Manager',
    },
    Object.assign({}, ...ports(env)),
  );
}

/** The media store (#16), where the CDK app gave the function the bucket. */
export function mediaStore(env: LambdaEnv): PortFactories {
  return env.CLAWFLEET_MEDIA_BUCKET ? mediaPorts(env.CLAWFLEET_MEDIA_BUCKET) : {};
}

/**
 * How a function that may wake or hibernate agents does it: it asks λ compute, the one
 * holder of ECS power (CLAWFLEET_COMPUTE_FUNCTION, which the CDK app sets on every such function).
 */
export function askingCompute(env: LambdaEnv): PortFactories {
  return env.CLAWFLEET_COMPUTE_FUNCTION ? lambdaComputePorts(env.CLAWFLEET_COMPUTE_FUNCTION) : inProcessCompute();
}

/**
 * Handlers run in-process from their sources (tests, benches) have no λ compute to ask, so
 * they set ECS themselves, as λ compute would. The ECS adapter is imported by a path esbuild
 * does not follow: no deployed bundle carries an ECS client, and a deployed function that
 * lacks CLAWFLEET_COMPUTE_FUNCTION says so at its first wake instead of calling ECS.
 */
function inProcessCompute(): PortFactories {
  return {
    compute: (cp) => {
      let loaded: Promise<AgentCompute> | undefined;
      const compute = () =>
        (loaded ??= import(new URL('../shared/adapters/aws/control-ports.ts', import.meta.url).href).then(
          (ports: { ecsComputePorts(): PortFactories }) => ports.ecsComputePorts().compute!(cp)!,
          (err: unknown) => {
            loaded = undefined;
            throw new ClawfleetError(
              'COMPUTE_NOT_CONFIGURED',
              'CLAWFLEET_COMPUTE_FUNCTION is not set: a deployed function asks λ compute and never calls ECS itself',
              { cause: err },
            );
          },
        ));
      return {
        setRunning: async (agentId, running) => (await compute()).setRunning(agentId, running),
        restart: async (agentId) => (await compute()).restart(agentId),
      };
    },
  };
}
