// The control plane's asynchronous Lambda invocations (shared/adapters/aws/signed-lambda-invoker.ts,
// how every function asks λ compute) against an emulator that checks SigV4 signatures and IAM:
// its own MiniStack started with AUTH=true, where an IAM user's request is verified against
// the user's secret and its policy. A queued event reaches the function; a wrong secret is
// refused as AWS refuses it; an unknown function is named as Lambda names it.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateFunctionCommand, GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaAgentCompute } from '../../shared/adapters/aws/lambda-agent-compute.ts';
import { SignedLambdaInvoker } from '../../shared/adapters/aws/signed-lambda-invoker.ts';
import { startMinistack } from '../../bench/emulator.ts';
import { awsQuery } from '../support/aws-query.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ACCOUNT = '246813579024';
const SECRET = 'test';
let emulator: ChildProcess;
let aws: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
/** An IAM user allowed lambda:InvokeFunction and nothing else: its requests' signatures are checked (a root key's are not). */
let asker: typeof aws;

beforeAll(async () => {
  const tmp = tempDir('cf-auth-emu-');
  // Every request's signature is checked against the account's secret.
  const started = await startMinistack(tmp, { AUTH: 'true', AWS_SECRET_ACCESS_KEY: SECRET });
  emulator = started.proc;
  const endpoint = started.endpoint;
  aws = { endpoint, region: 'us-east-1', credentials: { accessKeyId: ACCOUNT, secretAccessKey: SECRET } };

  // Under AUTH a function's role must exist: IAM's Query API, signed as the SDK signs it.
  await iamQuery({
    Action: 'CreateRole',
    RoleName: 'probe',
    AssumeRolePolicyDocument: JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    }),
  });
  await iamQuery({ Action: 'CreateUser', UserName: 'asker' });
  await iamQuery({
    Action: 'PutUserPolicy',
    UserName: 'asker',
    PolicyName: 'invoke',
    PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' }] }),
  });
  const key = await iamQuery({ Action: 'CreateAccessKey', UserName: 'asker' });
  const field = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(key)![1]!;
  asker = { ...aws, credentials: { accessKeyId: field('AccessKeyId'), secretAccessKey: field('SecretAccessKey') } };
  // A function that logs the event it was invoked with.
  writeFileSync(join(tmp, 'index.mjs'), "export const handler = async (event) => { console.log('INVOKED ' + JSON.stringify(event)); return 'ok'; };\n");
  execFileSync('python3', [
    '-c',
    'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w"); z.write(sys.argv[2], "index.mjs"); z.close()',
    join(tmp, 'fn.zip'),
    join(tmp, 'index.mjs'),
  ]);
  const lambda = new LambdaClient(aws);
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: 'probe',
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: `arn:aws:iam::${ACCOUNT}:role/probe`,
      Code: { ZipFile: readFileSync(join(tmp, 'fn.zip')) },
    }),
  );
  // Until it is no longer Pending: a guess of a few seconds once ran out on a busy machine's emulator.
  for (let i = 0; (await lambda.send(new GetFunctionCommand({ FunctionName: 'probe' }))).Configuration?.State === 'Pending'; i++) {
    if (i > 600) throw new Error('the function "probe" is still Pending after a minute');
    await new Promise((r) => setTimeout(r, 100));
  }
  // The emulator's start (up to 30 s) and the function's (up to a minute) each say why they ran out, within this.
}, 120_000);

/** One IAM Query API call (there is no IAM client among the project's SDK packages). */
const iamQuery = (params: Record<string, string>) => awsQuery(aws, 'iam', { ...params, Version: '2010-05-08' });

afterAll(() => {
  if (emulator?.pid) process.kill(-emulator.pid, 'SIGTERM');
});

const invoked = async () => {
  const { events = [] } = await new CloudWatchLogsClient(aws).send(
    new FilterLogEventsCommand({ logGroupName: '/aws/lambda/probe', filterPattern: '"INVOKED"' }),
  );
  return events.map((e) => e.message!.slice(e.message!.indexOf('INVOKED ') + 8).trim());
};

describe('an asynchronous invocation signed with the SDK’s SigV4 signer', () => {
  it('is accepted by an emulator that checks signatures, queued (202), and run with its payload', async () => {
    const payload = new TextEncoder().encode(JSON.stringify({ v: 1, agentId: 'fran', action: 'run' }));
    expect(await new SignedLambdaInvoker(asker).invokeEvent('probe', payload)).toEqual({ statusCode: 202 });
    await expect.poll(invoked, { timeout: 30_000, interval: 250 }).toContain('{"v":1,"agentId":"fran","action":"run"}');
  });

  it('takes its credentials from the environment, as on Lambda (the SDK’s default chain)', async () => {
    const env = { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: aws.endpoint };
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: asker.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: asker.credentials.secretAccessKey });
    try {
      const compute = new LambdaAgentCompute(new SignedLambdaInvoker({ env }), 'probe');
      await compute.setRunning('grif', false);
    } finally {
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: saved.id, AWS_SECRET_ACCESS_KEY: saved.secret });
    }
    await expect.poll(invoked, { timeout: 30_000, interval: 250 }).toContain('{"v":1,"agentId":"grif","action":"stop"}');
  });

  it('is refused with a wrong secret, as AWS refuses it, and not retried into success', async () => {
    const forged = new SignedLambdaInvoker({ ...asker, credentials: { ...asker.credentials, secretAccessKey: 'not-the-secret' } });
    await expect(forged.invokeEvent('probe', new Uint8Array([123, 125]))).rejects.toMatchObject({ name: 'InvalidSignatureException', statusCode: 403 });
  });

  it('names a function that does not exist as Lambda does, and λ compute’s asker says whom it could not ask', async () => {
    await expect(new SignedLambdaInvoker(asker).invokeEvent('nobody', new Uint8Array())).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      statusCode: 404,
    });
    await expect(new LambdaAgentCompute(new SignedLambdaInvoker(asker), 'nobody').setRunning('fran', true)).rejects.toMatchObject({
      code: 'COMPUTE_ASK_FAILED',
      message: 'could not ask nobody to run agent fran: ResourceNotFoundException',
    });
  });
});
