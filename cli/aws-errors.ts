// What went wrong with an AWS call, as one sentence that says what to do next: credentials
// missing, expired or wrong, access denied, no region, throttling, something not deployed
// there, an endpoint out of reach. Every --aws command words its failures here (the SDK's
// own names, CredentialsProviderError and the like, stay in brackets for a search). It reads
// the error's shape only: no SDK is loaded for it.
import type { AwsSettings } from './aws-env.ts';

export type AwsProblemKind =
  | 'credentials-missing'
  | 'credentials-expired'
  | 'credentials-invalid'
  | 'access-denied'
  | 'region-missing'
  | 'throttled'
  | 'not-found'
  | 'unreachable'
  | 'other';

export interface AwsProblem {
  kind: AwsProblemKind;
  /** What is wrong, e.g. "no AWS credentials found". */
  problem: string;
  /** What to do about it, e.g. "sign in (aws configure, aws sso login…), then run this again". */
  next: string;
  /** The SDK's name or Node's code for it (CredentialsProviderError, ECONNREFUSED…). */
  code: string;
}

interface ErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const INVALID_CREDENTIALS = new Set([
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'AuthFailure',
  'InvalidAccessKeyId',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'InvalidToken',
]);

/** Whether `err` came from an AWS call (the SDK's errors, its credential chain, or the network under it). */
export function isAwsError(err: unknown): boolean {
  const e = (err ?? {}) as ErrorShape;
  return (
    typeof err === 'object' &&
    err !== null &&
    (e.$metadata !== undefined || e.name === 'CredentialsProviderError' || e.name === 'TokenProviderError' || e.message === 'Region is missing')
  );
}

/** The region and endpoint the CLI talked to, for the sentences. */
const reached = (aws?: AwsSettings) => (aws?.endpoint ? `${aws.endpoint} (AWS_ENDPOINT_URL)` : aws ? `AWS in ${aws.region}` : 'AWS');

export function awsProblem(err: unknown, aws?: AwsSettings): AwsProblem {
  const e = (err ?? {}) as ErrorShape;
  const name = e.name ?? 'Error';
  const message = e.message ?? '';
  const code = NETWORK_CODES.has(e.code ?? '') ? e.code! : name;
  const status = e.$metadata?.httpStatusCode;
  const signIn = 'sign in (aws configure, aws sso login, or AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), then run this again';

  if (/expired/i.test(message) || /ExpiredToken|RequestExpired|TokenRefreshRequired/.test(name))
    return {
      kind: 'credentials-expired',
      problem: 'your AWS credentials have expired',
      next: 'sign in again (aws sso login, or fresh temporary keys), then run this again',
      code,
    };
  if (name === 'CredentialsProviderError' || name === 'TokenProviderError')
    return { kind: 'credentials-missing', problem: 'no AWS credentials found', next: signIn, code };
  if (INVALID_CREDENTIALS.has(name))
    return {
      kind: 'credentials-invalid',
      problem: 'AWS does not accept these credentials (an unknown or deleted access key, or a secret key that does not match it)',
      next: 'check AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then run this again',
      code,
    };
  if (/AccessDenied|UnauthorizedOperation|AuthorizationError|NotAuthorized|Forbidden/.test(name) || status === 403) {
    const action = /not authorized to perform:? ([\w:*-]+)/.exec(message)?.[1];
    return {
      kind: 'access-denied',
      problem: `access denied${action ? `: your credentials may not call ${action}` : ''}`,
      next: 'use a role or user allowed to (docs/deploy.md says what clawfleet needs), then run this again',
      code,
    };
  }
  if (message === 'Region is missing')
    return { kind: 'region-missing', problem: 'no AWS region is set', next: 'set AWS_REGION (for example AWS_REGION=us-east-1), then run this again', code };
  if (/Throttl|TooManyRequests|RequestLimitExceeded|SlowDown|ProvisionedThroughputExceeded|RequestThrottled/.test(name) || status === 429)
    return { kind: 'throttled', problem: 'AWS is throttling these requests', next: 'wait a minute, then run this again', code };
  if (/NotFound|NoSuch|NonExistent|DoesNotExist/.test(name) || (name === 'ValidationError' && /does not exist/.test(message)))
    return {
      kind: 'not-found',
      problem: `it does not exist at ${reached(aws)}${message ? ` (${message.replace(/\.$/, '')})` : ''}`,
      next: 'deploy the fleet there first (clawfleet deploy), or check AWS_REGION and the account you are signed in to',
      code,
    };
  if (NETWORK_CODES.has(e.code ?? '') || name === 'TimeoutError' || name === 'NetworkingError')
    return {
      kind: 'unreachable',
      problem: `cannot reach ${reached(aws)}`,
      next: aws?.endpoint
        ? 'is the emulator running there? Start it, or unset AWS_ENDPOINT_URL for AWS itself'
        : `check your network and AWS_REGION${aws ? ` ("${aws.region}")` : ''}, then run this again`,
      code,
    };
  return { kind: 'other', problem: message && message !== name ? message : 'the call failed', next: '', code };
}

/** `what` failed, and why, as the one line the CLI prints: "cannot read queue x: no AWS credentials found; sign in (…) [CredentialsProviderError]". */
export function awsErrorText(what: string, err: unknown, aws?: AwsSettings): string {
  const p = awsProblem(err, aws);
  return `${what}: ${p.problem}${p.next ? `; ${p.next}` : ''} [${p.code}]`;
}
