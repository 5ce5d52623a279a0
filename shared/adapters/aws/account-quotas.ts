// The account's quotas and what counts against them, for the deploy's preflight (the
// AccountQuotas port), read-only: Lambda GetAccountSettings and GetFunctionConcurrency,
// Service Quotas GetServiceQuota (the applied value, else GetAWSDefaultServiceQuota), IAM
// GetAccountSummary, CloudFormation ListStacks, EC2 DescribeVpcs and DescribeInternetGateways.
import { CloudFormationClient, ListStacksCommand, type StackStatus } from '@aws-sdk/client-cloudformation';
import { DescribeInternetGatewaysCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetAccountSummaryCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetAWSDefaultServiceQuotaCommand, GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import type { AccountQuotas } from '../../ports.ts';
import type { AwsClientConfig } from './clients.ts';

/** Every stack status but DELETE_COMPLETE: what CloudFormation's stack count counts. */
const LIVE_STACKS: StackStatus[] = [
  'CREATE_IN_PROGRESS',
  'CREATE_FAILED',
  'CREATE_COMPLETE',
  'ROLLBACK_IN_PROGRESS',
  'ROLLBACK_FAILED',
  'ROLLBACK_COMPLETE',
  'DELETE_IN_PROGRESS',
  'DELETE_FAILED',
  'UPDATE_IN_PROGRESS',
  'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS',
  'UPDATE_COMPLETE',
  'UPDATE_FAILED',
  'UPDATE_ROLLBACK_IN_PROGRESS',
  'UPDATE_ROLLBACK_FAILED',
  'UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS',
  'UPDATE_ROLLBACK_COMPLETE',
  'REVIEW_IN_PROGRESS',
  'IMPORT_IN_PROGRESS',
  'IMPORT_COMPLETE',
  'IMPORT_ROLLBACK_IN_PROGRESS',
  'IMPORT_ROLLBACK_FAILED',
  'IMPORT_ROLLBACK_COMPLETE',
];

export class AwsAccountQuotas implements AccountQuotas {
  private readonly lambda: LambdaClient;
  private readonly quotas: ServiceQuotasClient;
  private readonly iam: IAMClient;
  private readonly cfn: CloudFormationClient;
  private readonly ec2: EC2Client;

  constructor(config: AwsClientConfig) {
    const settings = { ...config, maxAttempts: 3 };
    this.lambda = new LambdaClient(settings);
    this.quotas = new ServiceQuotasClient(settings);
    this.iam = new IAMClient(settings);
    this.cfn = new CloudFormationClient(settings);
    this.ec2 = new EC2Client(settings);
  }

  async lambdaConcurrency(): Promise<{ limit: number; unreserved: number }> {
    const { AccountLimit } = await this.lambda.send(new GetAccountSettingsCommand({}));
    if (AccountLimit?.ConcurrentExecutions === undefined) throw new Error('GetAccountSettings returned no ConcurrentExecutions');
    return { limit: AccountLimit.ConcurrentExecutions, unreserved: AccountLimit.UnreservedConcurrentExecutions ?? AccountLimit.ConcurrentExecutions };
  }

  async reservedConcurrency(functionNames: string[]): Promise<number> {
    let total = 0;
    for (const FunctionName of functionNames) {
      try {
        total += (await this.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName }))).ReservedConcurrentExecutions ?? 0;
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw err;
      }
    }
    return total;
  }

  async serviceQuota(ServiceCode: string, QuotaCode: string): Promise<number> {
    try {
      const { Quota } = await this.quotas.send(new GetServiceQuotaCommand({ ServiceCode, QuotaCode }));
      if (Quota?.Value !== undefined) return Quota.Value;
    } catch (err) {
      // No value applied to this account: AWS's default is the account's.
      if ((err as Error).name !== 'NoSuchResourceException') throw err;
    }
    const { Quota } = await this.quotas.send(new GetAWSDefaultServiceQuotaCommand({ ServiceCode, QuotaCode }));
    if (Quota?.Value === undefined) throw new Error(`Service Quotas has no value for ${ServiceCode} ${QuotaCode}`);
    return Quota.Value;
  }

  async iamRoles(): Promise<{ used: number; quota: number }> {
    const { SummaryMap = {} } = await this.iam.send(new GetAccountSummaryCommand({}));
    if (SummaryMap.Roles === undefined || SummaryMap.RolesQuota === undefined) throw new Error('GetAccountSummary returned no Roles or RolesQuota');
    return { used: SummaryMap.Roles, quota: SummaryMap.RolesQuota };
  }

  async stackCount(): Promise<number> {
    let count = 0;
    let NextToken: string | undefined;
    do {
      const page = await this.cfn.send(new ListStacksCommand({ StackStatusFilter: LIVE_STACKS, NextToken }));
      // Filtered here too: the filter is a request an emulator may not honour.
      count += (page.StackSummaries ?? []).filter((s) => s.StackStatus !== 'DELETE_COMPLETE').length;
      NextToken = page.NextToken;
    } while (NextToken);
    return count;
  }

  async networkCounts(): Promise<{ vpcs: number; internetGateways: number }> {
    let vpcs = 0;
    let internetGateways = 0;
    let NextToken: string | undefined;
    do {
      const page = await this.ec2.send(new DescribeVpcsCommand({ NextToken }));
      vpcs += page.Vpcs?.length ?? 0;
      NextToken = page.NextToken;
    } while (NextToken);
    do {
      const page = await this.ec2.send(new DescribeInternetGatewaysCommand({ NextToken }));
      internetGateways += page.InternetGateways?.length ?? 0;
      NextToken = page.NextToken;
    } while (NextToken);
    return { vpcs, internetGateways };
  }
}
