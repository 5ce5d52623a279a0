// Deploys one of our Lambda handlers into the emulator as a real nodejs function: bundled
// by esbuild (AWS SDK included, as the emulator needs), zipped, and created with the
// environment the test gives it. Used where the emulator itself must invoke a handler
// (EventBridge Scheduler firing λ cron-dispatch).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateFunctionCommand, GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { build } from 'esbuild';
import type { AwsTestEnv } from './aws.ts';
import { tempDir } from './temp-dirs.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export async function deployHandler(env: AwsTestEnv, handler: string, functionName: string, environment: Record<string, string>): Promise<string> {
  const dir = tempDir('cf-lambda-');
  await build({
    entryPoints: [join(REPO, 'functions', `${handler}.ts`)],
    outfile: join(dir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS dependencies inside an ES module need a require.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'error',
  });
  execFileSync('python3', [
    '-c',
    'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED); z.write(sys.argv[2], "index.mjs"); z.close()',
    join(dir, 'fn.zip'),
    join(dir, 'index.mjs'),
  ]);
  const lambda = new LambdaClient(env);
  const { FunctionArn } = await lambda.send(
    new CreateFunctionCommand({
      FunctionName: functionName,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: `arn:aws:iam::${env.accountId}:role/${functionName}`,
      Code: { ZipFile: readFileSync(join(dir, 'fn.zip')) },
      Timeout: 30,
      Environment: { Variables: environment },
    }),
  );
  // Wait until the function can be invoked (however long a busy machine's emulator takes; 5 s was once too few).
  for (let i = 0; ; i++) {
    const { Configuration } = await lambda.send(new GetFunctionCommand({ FunctionName: functionName }));
    if (Configuration?.State !== 'Pending') break;
    if (i > 600) throw new Error(`the function "${functionName}" is still Pending after a minute`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return FunctionArn!;
}
