// An agent whose secret lacks a value its config needs waits for it instead of exiting:
// on AWS an exit would fail the first deployment and CloudFormation's rollback would delete
// the very secret the user was about to fill. While it waits the runtime takes no message
// (they wait in its queue), says "waiting for secret …" in a heartbeat every so often (the
// registry, `clawfleet status` and the dashboard show it), re-reads its secret with backoff
// where it can, and returns the values once every one is there.
import { HEARTBEAT_WARNING_MAX, WAITING_FOR_SECRET } from '../../../shared/protocol/envelopes.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import type { Placement } from '../../../shared/config/runtime-kinds.ts';
import { secretsNeeded, type NeededValue } from '../../../shared/secrets/agent-secrets.ts';
import { deviceKeyProblem } from '../../../shared/secrets/openclaw-device-key.ts';
import { waitingBeats } from '../liveness/waiting-beats.ts';
import { pause } from '../pause.ts';
import { RUNTIME_VERSION, type RuntimeParts } from '../kinds/runtime-kind.ts';
import { processRedactor } from '../../../shared/log.ts';

/** What the operator runs to set one of this agent's secret values (the warnings name it). */
export function howToSetSecret(env: Pick<RuntimeParts['env'], 'agentId' | 'transport'>, name: string): string {
  return `clawfleet secrets set ${name} --agent ${env.agentId}${env.transport.kind === 'aws' ? ' --aws' : ''} (< value), which restarts the agent`;
}

/**
 * A runtime kind's wait for this agent's secret values (awaitSecrets, as every kind waits):
 * read as its connection reads them, heartbeats at the runtime's interval, stopped by the
 * process's stop; the values, once all are there, are redacted from everything logged.
 */
export async function awaitAgentSecrets(
  parts: Pick<RuntimeParts, 'env' | 'secrets' | 'readSecrets' | 'outbox' | 'clock' | 'log' | 'stopSignal'>,
  needs: Pick<SecretWaitDeps, 'modelKeys' | 'placement'>,
): Promise<Record<string, string>> {
  const { env } = parts;
  const secrets = await awaitSecrets({
    config: env.config,
    secretId: env.secretId,
    ...needs,
    read: parts.readSecrets ?? (async () => parts.secrets),
    howToSet: howToSetSecret(env, '<NAME>'),
    outbox: parts.outbox,
    clock: parts.clock,
    log: parts.log,
    version: RUNTIME_VERSION,
    heartbeatMs: env.heartbeatMs,
    signal: parts.stopSignal,
  });
  processRedactor.add(...Object.values(secrets));
  return secrets;
}

/** Reads of the secret start 1 s apart and double up to a minute (~$0.02 a day in Secrets Manager calls). */
export const SECRET_RECHECK = { firstMs: 1_000, maxMs: 60_000 };

export interface SecretWaitDeps {
  config: RuntimeConfig;
  secretId: string;
  /** Whether the model keys count (not where the offline model or a test's model answers). */
  modelKeys: boolean;
  /** Where the runtime runs (default local): on AWS some values are needed that locally are made (an OpenClaw device key). */
  placement?: Placement;
  /**
   * Reads the secret's values; throws a ClawfleetError (SECRET_NOT_FOUND, _UNREADABLE,
   * _MALFORMED) when it cannot. Locally it gives what the launcher piped at start: new
   * values come with a restart, which `clawfleet secrets set` asks for.
   */
  read(): Promise<Record<string, string>>;
  /** What the operator runs to set a value, named in the warning. */
  howToSet: string;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  version: string;
  /** How often the waiting runtime heartbeats (the runtime's heartbeat interval; 0 = only once). */
  heartbeatMs: number;
  /** Stops the wait (SIGTERM): it then throws STOPPED_WAITING_FOR_SECRET. */
  signal?: AbortSignal | undefined;
  recheck?: { firstMs: number; maxMs: number };
}

/** What a read found: the values, or why there are none. */
interface ReadResult {
  values: Record<string, string>;
  problem?: string;
}

/** What is wrong with a value of a particular form (never quoting it), or undefined. */
const FORM_PROBLEM: Record<NonNullable<NeededValue['form']>, (value: string) => string | undefined> = {
  'openclaw-device-key': deviceKeyProblem,
};

/**
 * The names the config needs that `values` lacks, each with what needs it (first user wins);
 * a value of the wrong form counts as missing, its usedBy saying what is wrong with it.
 */
export function missingSecrets(
  config: RuntimeConfig,
  values: Record<string, string>,
  opts: { modelKeys: boolean; placement?: Placement | undefined },
): { name: string; usedBy: string }[] {
  const seen = new Set<string>();
  const out: { name: string; usedBy: string }[] = [];
  for (const need of secretsNeeded(config, opts.placement ? { modelKeys: opts.modelKeys, placement: opts.placement } : { modelKeys: opts.modelKeys })) {
    if (seen.has(need.name)) continue;
    const value = values[need.name];
    const problem = value && need.form ? FORM_PROBLEM[need.form](value) : undefined;
    if (value && !problem) continue;
    seen.add(need.name);
    out.push({ name: need.name, usedBy: problem ? `${need.usedBy}: the value held ${problem}` : need.usedBy });
  }
  return out;
}

/** The warning the heartbeat carries: the secret, the names and who needs them, never a value. */
export function waitingWarning(secretId: string, missing: { name: string; usedBy: string }[], howToSet: string, problem?: string): string {
  const names = missing.map((m) => `${m.name} (${m.usedBy})`).join(', ');
  const why = problem ? `${problem}; it must hold ${names}` : `it lacks ${names}`;
  const text = `${WAITING_FOR_SECRET} "${secretId}": ${why}. Set with: ${howToSet}`;
  return text.length <= HEARTBEAT_WARNING_MAX ? text : `${text.slice(0, HEARTBEAT_WARNING_MAX - 1)}…`;
}

/** Returns the secret's values once every one the config needs is there; the first read usually finds them and returns at once. */
export async function awaitSecrets(deps: SecretWaitDeps): Promise<Record<string, string>> {
  const { log, clock } = deps;
  const recheck = deps.recheck ?? SECRET_RECHECK;
  let found = await readOnce(deps);
  let missing = missingSecrets(deps.config, found.values, { modelKeys: deps.modelKeys, placement: deps.placement });
  // Nothing needed (an agent on Bedrock with no MCP token): a secret without a value is fine.
  if (missing.length === 0) return found.values;

  const startedAt = clock.now();
  const beats = waitingBeats({
    agentId: deps.config.agent.id,
    heartbeatMs: deps.heartbeatMs,
    clock,
    outbox: deps.outbox,
    log,
    version: deps.version,
    label: 'wait',
  });
  let warning = '';
  const report = () => {
    const next = waitingWarning(deps.secretId, missing, deps.howToSet, found.problem);
    if (next === warning) return;
    warning = next;
    // Names only: which values, which secret, what reads them.
    log.warn('waiting for secret values; taking no work until they are set', {
      secret: deps.secretId,
      missing: missing.map((m) => m.name),
      ...(found.problem ? { problem: found.problem } : {}),
    });
    beats.say(warning);
  };
  report();
  try {
    let delay = recheck.firstMs;
    for (;;) {
      await pause(delay, deps.signal);
      if (deps.signal?.aborted)
        throw new ClawfleetError(
          'STOPPED_WAITING_FOR_SECRET',
          `stopped while waiting for secret "${deps.secretId}" (${missing.map((m) => m.name).join(', ')})`,
        );
      delay = Math.min(recheck.maxMs, delay * 2);
      found = await readOnce(deps);
      missing = missingSecrets(deps.config, found.values, { modelKeys: deps.modelKeys, placement: deps.placement });
      if (missing.length === 0) {
        log.info('secret values found; starting', { secret: deps.secretId, waitedMs: clock.now() - startedAt });
        return found.values;
      }
      report();
    }
  } finally {
    beats.end();
  }
}

/** One read; what cannot be read is a problem to wait out, named by its code (never a value). */
async function readOnce(deps: SecretWaitDeps): Promise<ReadResult> {
  try {
    return { values: await deps.read() };
  } catch (err) {
    const code = err instanceof ClawfleetError ? err.code : undefined;
    if (code === 'SECRET_NOT_FOUND') return { values: {}, problem: 'it has no value yet' };
    if (code === 'SECRET_MALFORMED') return { values: {}, problem: 'it is not a JSON object of named string values' };
    if (code === 'SECRET_UNREADABLE') return { values: {}, problem: `it cannot be read (${(err as Error).message.replace(/^.*: /, '')})` };
    throw err;
  }
}
