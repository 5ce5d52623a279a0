// The preflight's account adapter (AwsAccountQuotas) against the emulator, for the APIs it
// implements: Lambda GetAccountSettings and GetFunctionConcurrency, IAM GetAccountSummary,
// CloudFormation ListStacks, EC2 DescribeVpcs and DescribeInternetGateways — each figure
// moving as the account changes. MiniStack 1.5.33 has no Service Quotas: the call is refused,
// which the preflight reports as a quota it could not check (the adapter's Service Quotas
// side is tested at its boundary in test/unit/account-quotas-adapter.test.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand, DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CreateInternetGatewayCommand, CreateVpcCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { CreateFunctionCommand, LambdaClient, PutFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { AwsAccountQuotas } from '../../shared/adapters/aws/account-quotas.ts';
import { QUOTAS, readAccountFigures } from '../../shared/deploy/preflight.ts';
import { awsTestEnv } from '../support/aws.ts';
import { tempDir } from '../support/temp-dirs.ts';

const aws = awsTestEnv();
const quotas = new AwsAccountQuotas(aws);
const dir = tempDir('cf-quotas-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('AwsAccountQuotas against the emulator', () => {
  it('reads Lambda’s concurrency, and what named functions reserve (one that does not exist adds nothing)', async () => {
    const before = await quotas.lambdaConcurrency();
    expect(before.limit).toBeGreaterThan(0);
    writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => "ok";\n');
    execFileSync('python3', [
      '-c',
      'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w"); z.write(sys.argv[2], "index.mjs"); z.close()',
      join(dir, 'fn.zip'),
      join(dir, 'index.mjs'),
    ]);
    const lambda = new LambdaClient(aws);
    await lambda.send(
      new CreateFunctionCommand({
        FunctionName: 'qq-compute',
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Role: `arn:aws:iam::${aws.accountId}:role/fn`,
        Code: { ZipFile: readFileSync(join(dir, 'fn.zip')) },
      }),
    );
    await lambda.send(new PutFunctionConcurrencyCommand({ FunctionName: 'qq-compute', ReservedConcurrentExecutions: 7 }));
    expect(await quotas.reservedConcurrency(['qq-compute', 'qq-dashboard'])).toBe(7);
    const after = await quotas.lambdaConcurrency();
    expect(after).toEqual({ limit: before.limit, unreserved: before.unreserved - 7 });
  });

  it('counts IAM roles against their quota, CloudFormation stacks not deleted, and the region’s VPCs and internet gateways', async () => {
    const roles = await quotas.iamRoles();
    const iam = new IAMClient(aws);
    const trust = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    });
    for (const name of ['qq-a', 'qq-b']) await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: trust }));
    expect(await quotas.iamRoles()).toEqual({ used: roles.used + 2, quota: roles.quota });

    const stacks = await quotas.stackCount();
    const cfn = new CloudFormationClient(aws);
    const template = JSON.stringify({ Resources: { Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'qq-queue' } } } });
    await cfn.send(new CreateStackCommand({ StackName: 'qq-stack', TemplateBody: template }));
    await expect
      .poll(async () => (await cfn.send(new DescribeStacksCommand({ StackName: 'qq-stack' }))).Stacks?.[0]?.StackStatus, { timeout: 30_000 })
      .toBe('CREATE_COMPLETE');
    expect(await quotas.stackCount()).toBe(stacks + 1);
    await cfn.send(new DeleteStackCommand({ StackName: 'qq-stack' }));
    // Deleted, it counts no more (DELETE_COMPLETE is not in the count).
    await expect.poll(() => quotas.stackCount(), { timeout: 30_000 }).toBe(stacks);

    const network = await quotas.networkCounts();
    const ec2 = new EC2Client(aws);
    await ec2.send(new CreateVpcCommand({ CidrBlock: '10.77.0.0/16' }));
    await ec2.send(new CreateInternetGatewayCommand({}));
    expect(await quotas.networkCounts()).toEqual({ vpcs: network.vpcs + 1, internetGateways: network.internetGateways + 1 });
  });

  it('has no Service Quotas to ask on the emulator: that figure comes back as its error, the others as read', async () => {
    await expect(quotas.serviceQuota(QUOTAS.fargateOnDemand.serviceCode, QUOTAS.fargateOnDemand.quotaCode)).rejects.toThrow();
    const figures = await readAccountFigures(quotas, ['qq-compute']);
    expect(figures.fargateOnDemand).toEqual({ error: expect.any(String) });
    expect(figures.stacks).toEqual({ error: expect.any(String) });
    expect(figures.lambda).toEqual({ value: { limit: expect.any(Number), unreserved: expect.any(Number), fleetReserved: 7 } });
    expect(figures.iamRoles).toMatchObject({ value: { quota: 1000 } });
  });
});
