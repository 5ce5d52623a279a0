/**
 * Helpers for integration tests that talk to the AWS emulator started (or found) by
 * `global-setup.ts`.
 *
 *   const aws = awsTestEnv();            // this test file's own account
 *   const sqs = new SQSClient(aws);      // { endpoint, region, credentials } fit any v3 client
 *
 * MiniStack turns a 12-digit access key id into the account id of the request, and keeps
 * each account's resources apart, so every test file gets a fresh random account and
 * needs neither unique resource names nor a reset. (LocalStack does the same.)
 */
import { randomInt } from 'node:crypto';
import { inject } from 'vitest';

export interface AwsTestEnv {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The account id the emulator files this env's resources under (= accessKeyId). */
  accountId: string;
}

/** A random 12-digit account id that is not MiniStack's default 000000000000. */
export function randomAccountId(): string {
  return String(randomInt(100_000_000_000, 1_000_000_000_000));
}

/** Base URL of the emulator, e.g. http://127.0.0.1:45123. */
export function awsEndpoint(): string {
  const endpoint = inject('awsEndpoint') ?? process.env.AWS_ENDPOINT_URL;
  if (!endpoint) {
    throw new Error('No AWS emulator endpoint: run the tests through vitest (test/support/global-setup.ts) or set AWS_ENDPOINT_URL');
  }
  return endpoint;
}

// Vitest isolates each test file's module graph, so this is one account per test file.
let fileAccountId: string | undefined;

/**
 * Client config for the emulator. Without an argument: this test file's account (random,
 * the same on every call in the file). Pass an explicit 12-digit id for a second account.
 */
export function awsTestEnv(accountId?: string): AwsTestEnv {
  const id = accountId ?? (fileAccountId ??= randomAccountId());
  if (!/^\d{12}$/.test(id)) throw new Error(`account id must be 12 digits, got ${JSON.stringify(id)}`);
  return {
    endpoint: awsEndpoint(),
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: id, secretAccessKey: 'test' },
    accountId: id,
  };
}

let isMiniStack: Promise<boolean> | undefined;

async function detectMiniStack(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/_ministack/health`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) {
      await res.body?.cancel();
      return false;
    }
    const body = (await res.json()) as { version?: unknown; services?: unknown };
    return typeof body.version === 'string' && typeof body.services === 'object';
  } catch {
    return false;
  }
}

/**
 * Wipes ALL emulator state (every account), via MiniStack's `POST /_ministack/reset`.
 * Other test files run in parallel against the same emulator, so prefer a fresh account
 * (`awsTestEnv()`) to a reset; use this only in a suite that runs alone. Against an
 * emulator that is not MiniStack it does nothing but log a line.
 */
export async function resetEmulator(): Promise<void> {
  const endpoint = awsEndpoint();
  isMiniStack ??= detectMiniStack(endpoint);
  if (!(await isMiniStack)) {
    console.log(`[emulator] ${endpoint} is not MiniStack: resetEmulator() skipped`);
    return;
  }
  const res = await fetch(`${endpoint}/_ministack/reset`, { method: 'POST', signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${endpoint}/_ministack/reset: HTTP ${res.status} ${text}`);
}

/**
 * Points the Lambda handlers at this test file's account and fleet config. They read their
 * environment at module scope, as on AWS, so call this before importing a handler.
 */
export function setHandlerEnv(env: AwsTestEnv, config: unknown): void {
  Object.assign(process.env, {
    CLAWFLEET_CONFIG: JSON.stringify(config),
    AWS_ACCESS_KEY_ID: env.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: env.credentials.secretAccessKey,
    AWS_REGION: env.region,
    AWS_ENDPOINT_URL: env.endpoint,
  });
}
