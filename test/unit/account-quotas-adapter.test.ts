// The preflight's Service Quotas reads (AwsAccountQuotas.serviceQuota) at their boundary: the
// emulator has no Service Quotas, so a fake speaking its JSON 1.1 protocol answers with the
// shapes AWS's API reference records. The value applied to the account is taken; a quota with
// none applied (NoSuchResourceException) falls back to AWS's default; any other refusal is
// passed on for the preflight to report as a quota it could not check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsAccountQuotas } from '../../shared/adapters/aws/account-quotas.ts';
import { startFakeAwsJson, type AwsJsonAnswer, type AwsJsonCall, type FakeAwsJson } from '../support/fake-aws-json.ts';

let fake: FakeAwsJson;
let answer: (call: AwsJsonCall) => AwsJsonAnswer;
beforeAll(async () => {
  fake = await startFakeAwsJson((call) => answer(call));
});
afterAll(() => fake?.close());

const quotas = () => new AwsAccountQuotas({ endpoint: fake.url, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
/** A quota as GetServiceQuota and GetAWSDefaultServiceQuota return it. */
const quota = (value: number) => ({
  Quota: {
    ServiceCode: 'fargate',
    ServiceName: 'AWS Fargate',
    QuotaArn: 'arn:aws:servicequotas:eu-west-1:123456789012:fargate/L-3032A538',
    QuotaCode: 'L-3032A538',
    QuotaName: 'Fargate On-Demand vCPU resource count',
    Value: value,
    Unit: 'None',
    Adjustable: true,
    GlobalQuota: false,
    UsageMetric: {
      MetricNamespace: 'AWS/Usage',
      MetricName: 'ResourceCount',
      MetricDimensions: { Class: 'Standard/OnDemand', Resource: 'vCPU', Service: 'Fargate', Type: 'Resource' },
      MetricStatisticRecommendation: 'Maximum',
    },
  },
});

describe('AwsAccountQuotas.serviceQuota, at its boundary', () => {
  it('takes the value applied to the account', async () => {
    fake.calls.length = 0;
    answer = () => ({ body: quota(6) });
    expect(await quotas().serviceQuota('fargate', 'L-3032A538')).toBe(6);
    expect(fake.calls).toEqual([{ operation: 'GetServiceQuota', body: { ServiceCode: 'fargate', QuotaCode: 'L-3032A538' } }]);
  });

  it('falls back to AWS’s default when no value is applied to the account', async () => {
    fake.calls.length = 0;
    answer = (call) =>
      call.operation === 'GetServiceQuota'
        ? { error: 'NoSuchResourceException', message: 'The request failed because the specified service quota does not exist.' }
        : { body: quota(4000) };
    expect(await quotas().serviceQuota('fargate', 'L-3032A538')).toBe(4000);
    expect(fake.calls.map((c) => c.operation)).toEqual(['GetServiceQuota', 'GetAWSDefaultServiceQuota']);
    expect(fake.calls[1]!.body).toEqual({ ServiceCode: 'fargate', QuotaCode: 'L-3032A538' });
  });

  it('passes any other refusal on, without asking for the default', async () => {
    fake.calls.length = 0;
    answer = () => ({ error: 'AccessDeniedException', message: 'You do not have sufficient access to perform this action.' });
    await expect(quotas().serviceQuota('fargate', 'L-3032A538')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(fake.calls.map((c) => c.operation)).toEqual(['GetServiceQuota']);
  });
});
