// One signed request of AWS's Query protocol (form-encoded Action=… POSTs: CloudWatch's
// SetAlarmState, SNS's Publish), for the tests that need a call no installed SDK client makes.
// Signed with the SDK's own SigV4 signer, as the clients sign theirs; the answer is the XML
// body, returned when the status is 2xx.
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsTestEnv } from './aws.ts';

/** `service`: SigV4's name (monitoring for CloudWatch, sns); `params`: the action's, with Action and Version. */
export async function awsQuery(aws: AwsTestEnv, service: 'monitoring' | 'sns', params: Record<string, string>): Promise<string> {
  const url = new URL(aws.endpoint);
  const body = new URLSearchParams(params).toString();
  const request = {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    query: {},
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  };
  const signer = new SignatureV4({ service, region: aws.region, credentials: aws.credentials, sha256: Sha256 });
  const signed = await signer.sign(request);
  const res = await fetch(aws.endpoint, { method: 'POST', headers: signed.headers as Record<string, string>, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${service} ${params.Action} answered ${res.status}: ${text.slice(0, 500)}`);
  return text;
}
