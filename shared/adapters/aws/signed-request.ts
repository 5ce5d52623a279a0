// What the adapters that send one signed AWS request themselves share (signed-lambda-invoker.ts,
// signed-s3-media-store.ts): the region and endpoint read as the SDK reads them, the SDK's own
// SigV4 signer over its default credential chain, and the error a refused or unanswered
// request ends in.
import { partition } from '@aws-sdk/core/client';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsClientConfig } from './clients.ts';

/** AWS refused the request, or it never got an answer; `name` is AWS's error type (ResourceNotFoundException, NoSuchKey, …). */
export class AwsRequestError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    /** The HTTP status, or 0 when the request never got an answer. */
    readonly statusCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SignedService {
  /** SigV4's service name, and the service's endpoint host prefix. */
  service: string;
  /** The environment variable that overrides this service's endpoint (AWS_ENDPOINT_URL_LAMBDA, …). */
  endpointVariable: string;
  uriEscapePath: boolean;
  applyChecksum?: boolean;
}

/** The region, the endpoint override if any, and a signer, from the config or the process's environment. */
export function signedService(
  config: AwsClientConfig & { env?: NodeJS.ProcessEnv | undefined },
  s: SignedService,
  fail: (name: string, message: string) => Error,
): { region: string; override: string | undefined; defaultHost: (prefix: string) => string; signer: SignatureV4 } {
  const env = config.env ?? process.env;
  const region = config.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw fail('RegionMissing', 'no AWS region: set AWS_REGION');
  const signer = new SignatureV4({
    service: s.service,
    region,
    credentials: config.credentials ?? defaultProvider(),
    sha256: Sha256,
    uriEscapePath: s.uriEscapePath,
    ...(s.applyChecksum ? { applyChecksum: true } : {}),
  });
  return {
    region,
    override: config.endpoint ?? env[s.endpointVariable] ?? env.AWS_ENDPOINT_URL,
    defaultHost: (prefix) => `https://${prefix}.${region}.${partition(region).dnsSuffix}`,
    signer,
  };
}
