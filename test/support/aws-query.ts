// One signed request of AWS's Query protocol (form-encoded Action=… POSTs: CloudWatch's
// SetAlarmState, SNS's Publish, IAM), for the tests that need a call no installed SDK client makes.
// Signed with the SDK's own SigV4 signer, as the clients sign theirs; the answer is the XML
// body, returned when the status is 2xx.
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsTestEnv } from './aws.ts';

/** What a signature needs of an emulator: where it is, its region and the keys to sign with. */
type SigningEnv = Pick<AwsTestEnv, 'endpoint' | 'region' | 'credentials'>;

/** `service`: SigV4's name (monitoring for CloudWatch, sns, iam); `params`: the action's, with Action and Version. */
export async function awsQuery(aws: SigningEnv, service: 'monitoring' | 'sns' | 'iam', params: Record<string, string>): Promise<string> {
  const res = await signedPost(aws, service, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, new URLSearchParams(params).toString());
  if (!res.ok) throw new Error(`${service} ${params.Action} answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.text;
}

/** One POST to the emulator's endpoint, signed with SigV4 for `service` as the SDK's clients sign theirs: its status and body. */
export async function signedPost(
  aws: SigningEnv,
  service: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ ok: boolean; status: number; text: string }> {
  const url = new URL(aws.endpoint);
  const signer = new SignatureV4({ service, region: aws.region, credentials: aws.credentials, sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    query: {},
    headers: { host: url.host, ...headers },
    body,
  });
  // fetch writes the Host header itself, from the same URL.
  const res = await fetch(aws.endpoint, { method: 'POST', headers: Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host')), body });
  return { ok: res.ok, status: res.status, text: await res.text() };
}
