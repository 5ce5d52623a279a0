// cdklocal (the CDK CLI aimed at the emulator) run for a test's deploy: its AWS settings the
// emulator's and the test's account, its temp files in the test's work directory.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AwsTestEnv } from './aws.ts';

const CDKLOCAL = join(realpathSync(fileURLToPath(new URL('../../', import.meta.url))), 'node_modules', 'aws-cdk-local', 'bin', 'cdklocal');

/** Runs `cdklocal <args>` in `cwd`; a failure shows the tail of what it said. */
export function cdklocal(aws: AwsTestEnv, workDir: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<void> {
  const env = {
    ...process.env,
    // cdklocal drops AWS_* variables it is not told to keep, and would fall back to account 000000000000.
    AWS_ENVAR_ALLOWLIST: 'AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_REGION',
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ENDPOINT_URL_S3: aws.endpoint,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    AWS_REGION: aws.region,
    // Outside the repository (its package.json says "type": "module"): the emulator's Lambda worker.
    TMPDIR: join(workDir, 'tmp'),
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    CI: 'true',
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CDKLOCAL, ...args, '--no-notices'], { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cdklocal ${args[0]} failed (${err.message.split('\n')[0]}):\n${(stdout + stderr).slice(-6000)}`));
      else resolve();
    });
  });
}
