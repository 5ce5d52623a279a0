// Asynchronous Lambda invocations (Invoke with InvocationType Event) as one HTTPS request in
// the Invoke API's wire format, signed with the SDK's own SigV4 signer and credential chain.
// It stands in for @aws-sdk/client-lambda in the control-plane functions, which call nothing
// else of Lambda: that client brings every Lambda operation's schemas, error classes and the
// REST protocol stack (≈ 85 KB minified, a fifth of a function's bundle) for this one call.
import type { SignatureV4 } from '@smithy/signature-v4';
import type { AwsClientConfig } from './clients.ts';
import { AwsRequestError, signedService } from './signed-request.ts';

/** What an asking adapter needs of Lambda: queue an event for a function, answered with the status Lambda gave. */
export interface EventInvoker {
  invokeEvent(functionName: string, payload: Uint8Array): Promise<{ statusCode: number }>;
}

/** Lambda refused the request, or it never got an answer; `name` is Lambda's error type (ResourceNotFoundException, …). */
export class LambdaInvokeError extends AwsRequestError {}

/** As the SDK clients here are built (shared/adapters/aws/clients.ts): three attempts in all. */
const MAX_ATTEMPTS = 3;
/** An Event invocation is queued and answered at once; one that takes longer than this is tried again. */
const ATTEMPT_TIMEOUT_MS = 2_000;

export interface SignedLambdaInvokerOptions extends AwsClientConfig {
  /** The process's environment, read as the SDK reads it: AWS_REGION, AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL. */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export class SignedLambdaInvoker implements EventInvoker {
  private readonly endpoint: URL;
  private readonly signer: SignatureV4;
  private readonly fetch: typeof fetch;

  constructor(opts: SignedLambdaInvokerOptions = {}) {
    const lambda = signedService(
      opts,
      { service: 'lambda', endpointVariable: 'AWS_ENDPOINT_URL_LAMBDA', uriEscapePath: true },
      (name, message) => new LambdaInvokeError(name, message, 0),
    );
    this.endpoint = new URL(lambda.override ?? lambda.defaultHost('lambda'));
    this.signer = lambda.signer;
    this.fetch = opts.fetch ?? fetch;
  }

  async invokeEvent(functionName: string, payload: Uint8Array): Promise<{ statusCode: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(functionName, payload);
      } catch (err) {
        const retriable = err instanceof LambdaInvokeError && (err.statusCode === 0 || err.statusCode === 429 || err.statusCode >= 500);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw err;
        // Full jitter, as the SDK's standard retry strategy backs off.
        await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
      }
    }
  }

  private async attempt(functionName: string, payload: Uint8Array): Promise<{ statusCode: number }> {
    const path = `${this.endpoint.pathname.replace(/\/+$/, '')}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`;
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: this.endpoint.protocol,
      hostname: this.endpoint.hostname,
      ...(this.endpoint.port ? { port: Number(this.endpoint.port) } : {}),
      path,
      query: {},
      headers: { host: this.endpoint.host, 'content-type': 'application/octet-stream', 'x-amz-invocation-type': 'Event' },
      body: payload,
    });
    let res: Response;
    try {
      res = await this.fetch(new URL(path, this.endpoint), {
        method: 'POST',
        // `host` is signed, and fetch sets the same value itself.
        headers: Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host')),
        body: new Uint8Array(payload),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
    } catch (err) {
      throw new LambdaInvokeError(
        (err as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError',
        `Lambda Invoke of ${functionName} got no answer`,
        0,
        { cause: err },
      );
    }
    const text = await res.text().catch(() => '');
    if (res.ok) return { statusCode: res.status };
    throw new LambdaInvokeError(errorType(res, text), `Lambda Invoke of ${functionName} failed: HTTP ${res.status}`, res.status);
  }
}

/** Lambda names the error in X-Amzn-ErrorType ("ResourceNotFoundException:http://…"), or in the body's __type or Type. */
function errorType(res: Response, body: string): string {
  let type = res.headers.get('x-amzn-errortype') ?? undefined;
  if (!type) {
    try {
      const json = JSON.parse(body) as { __type?: unknown; code?: unknown };
      type = [json.__type, json.code].find((t): t is string => typeof t === 'string');
    } catch {
      // Not JSON: the status says what there is to say.
    }
  }
  return type?.split(':')[0]?.split('#').pop() || `Http${res.status}`;
}
