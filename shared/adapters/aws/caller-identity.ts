// Who the credentials are (STS GetCallerIdentity): the account and the identity's ARN.
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { AwsClientConfig } from './clients.ts';

export async function callerIdentity(config: AwsClientConfig): Promise<{ account: string; arn: string }> {
  const out = await new STSClient({ ...config, maxAttempts: 3 }).send(new GetCallerIdentityCommand({}));
  return { account: out.Account ?? 'unknown', arn: out.Arn ?? 'unknown' };
}
