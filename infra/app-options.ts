// What the CDK app is told besides the fleet config: CDK context (`-c key=value` or
// cdk.json), read and checked in one place. Context values from the command line are
// strings, so booleans and numbers are coerced here.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, formatPath } from '../shared/errors.ts';

/** The repository root: esbuild's project root and the runtime image's build context. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

const ContextSchema = z.object({
  /** Path of clawfleet.json, relative to the repository root. */
  config: z.string().min(1).default('clawfleet.json'),
  /**
   * Deploying to a LocalStack-compatible emulator (MiniStack): swap out only what the
   * emulator lacks (docs/deploy.md lists each difference).
   */
  emulator: flag.default(false),
  /** A registry image for the runtime instead of building runtime-image/ (required with emulator). */
  runtimeImage: z.string().min(1).optional(),
  /** Receives before a message moves to its queue's DLQ. */
  maxReceiveCount: z.coerce.number().int().min(1).max(1000).default(5),
  /**
   * The account's Lambda concurrency this fleet may reserve from: its "Concurrent executions"
   * quota, less what functions outside the fleet reserve. The public functions and λ compute
   * reserve theirs only when it leaves Lambda its 100 unreserved (reserved-concurrency.ts);
   * unknown, nothing is reserved. `clawfleet deploy` passes what the account says.
   */
  lambdaConcurrency: z.coerce.number().int().min(0).optional(),
  /** `false` reserves nothing, whatever the account could give. */
  reservedConcurrency: flag.default(true),
  /**
   * The agents whose stacks this deploy creates: comma-separated ids, or `*` for every agent
   * (a new fleet). Their services are created at desired count 0; every other agent's template
   * leaves DesiredCount out, so a redeploy keeps what λ compute set (agent-runtime.ts).
   */
  newAgents: z.union([z.string(), z.array(z.string())]).optional(),
  /** Days CloudWatch keeps the logs of runtimes and functions. */
  logRetentionDays: z.coerce
    .number()
    .refine((d) => RETENTION_DAYS.includes(d), `must be one of CloudWatch's retention periods: ${RETENTION_DAYS.join(', ')}`)
    .default(30),
});

export interface FleetAppOptions {
  configPath: string;
  emulator: boolean;
  runtimeImage: string | undefined;
  maxReceiveCount: number;
  reservedConcurrency: boolean;
  lambdaConcurrency: number | undefined;
  /** Agents whose services this deploy creates (desired count 0 on creation): `all`, or their ids. */
  newAgents: 'all' | ReadonlySet<string>;
  logRetentionDays: number;
}

/** Reads the app's options from CDK context; `lookup` is `app.node.tryGetContext`. */
export function readAppOptions(lookup: (key: string) => unknown): FleetAppOptions {
  const raw = Object.fromEntries(
    ['config', 'emulator', 'runtimeImage', 'maxReceiveCount', 'reservedConcurrency', 'lambdaConcurrency', 'newAgents', 'logRetentionDays']
      .map((k) => [k, lookup(k)])
      .filter(([, v]) => v !== undefined),
  );
  const parsed = ContextSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ path: `context.${formatPath(i.path)}`, message: i.message })),
      'CDK context',
    );
  }
  const c = parsed.data;
  if (c.emulator && !c.runtimeImage) {
    throw new ConfigError(
      [{ path: 'context.runtimeImage', message: 'is required with emulator=true: the emulator cannot build the runtime image' }],
      'CDK context',
    );
  }
  return {
    configPath: resolve(REPO_ROOT, c.config),
    emulator: c.emulator,
    runtimeImage: c.runtimeImage,
    maxReceiveCount: c.maxReceiveCount,
    reservedConcurrency: c.reservedConcurrency,
    lambdaConcurrency: c.lambdaConcurrency,
    newAgents: newAgentsOption(c.newAgents),
    logRetentionDays: c.logRetentionDays,
  };
}

/** `*` (or a list holding it) is every agent; otherwise the ids named, blanks dropped. */
function newAgentsOption(value: string | string[] | undefined): 'all' | ReadonlySet<string> {
  const ids = (Array.isArray(value) ? value : (value ?? '').split(',')).map((id) => id.trim()).filter(Boolean);
  return ids.includes('*') ? 'all' : new Set(ids);
}

/** The context value that tells the app which agents' stacks a deploy creates (`clawfleet deploy` passes the ones it does not find). */
export function newAgentsContext(agentIds: readonly string[]): string {
  return agentIds.join(',');
}
