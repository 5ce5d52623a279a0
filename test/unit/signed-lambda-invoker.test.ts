// The signed Lambda invoker's own behaviour (shared/adapters/aws/signed-lambda-invoker.ts):
// where it sends the request, what it signs, and which failures it tries again, as the SDK's
// standard retry would. The signature itself is checked by an emulator that verifies it
// (test/integration/lambda-invoke.test.ts).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedLambdaInvoker } from '../../shared/adapters/aws/signed-lambda-invoker.ts';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

/** Records what a fetch was asked, answering 202. */
function recording() {
  const asked: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch = (async (url: URL, init: RequestInit) => {
    asked.push({ url: String(url), headers: init.headers as Record<string, string>, body: new TextDecoder().decode(init.body as Uint8Array) });
    return new Response(null, { status: 202 });
  }) as unknown as typeof globalThis.fetch;
  return { asked, fetch };
}

describe('the signed Lambda invoker', () => {
  it('posts the payload to the Invoke API of the region’s endpoint, as an Event, signed for lambda', async () => {
    const { asked, fetch } = recording();
    await new SignedLambdaInvoker({ env: { AWS_REGION: 'eu-west-1' }, credentials, fetch }).invokeEvent('demo-compute', new TextEncoder().encode('{"v":1}'));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.url).toBe('https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/demo-compute/invocations');
    expect(asked[0]!.body).toBe('{"v":1}');
    expect(asked[0]!.headers).toMatchObject({ 'x-amz-invocation-type': 'Event', 'content-type': 'application/octet-stream' });
    expect(asked[0]!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/lambda\/aws4_request, SignedHeaders=.*host.*x-amz-invocation-type/,
    );
  });

  it('finds the endpoint of another partition, and takes an emulator’s from the environment as the SDK does', async () => {
    const china = recording();
    await new SignedLambdaInvoker({ env: { AWS_REGION: 'cn-north-1' }, credentials, fetch: china.fetch }).invokeEvent('f', new Uint8Array());
    expect(china.asked[0]!.url).toMatch(/^https:\/\/lambda\.cn-north-1\.amazonaws\.com\.cn\//);
    const emulator = recording();
    const env = { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: 'http://127.0.0.1:1', AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:4566' };
    await new SignedLambdaInvoker({ env, credentials, fetch: emulator.fetch }).invokeEvent('a b', new Uint8Array());
    expect(emulator.asked[0]!.url).toBe('http://127.0.0.1:4566/2015-03-31/functions/a%20b/invocations');
  });

  it('refuses to start without a region rather than guess one', () => {
    expect(() => new SignedLambdaInvoker({ env: {}, credentials })).toThrow(/no AWS region/);
  });
});

describe('its retries', () => {
  let server: Server;
  let endpoint: string;
  const script: number[] = [];
  let calls = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      calls++;
      req.resume().on('end', () => {
        const status = script.shift() ?? 202;
        if (status === 202) return res.writeHead(202).end();
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-amzn-errortype': status === 429 ? 'TooManyRequestsException:http://internal.amazon.com/' : 'ServiceException',
        });
        res.end(JSON.stringify({ Type: 'Service', message: 'scripted' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const invoker = () => new SignedLambdaInvoker({ env: { AWS_REGION: 'us-east-1' }, endpoint, credentials });

  it('tries a throttled or failed call again, three attempts in all, and succeeds when Lambda does', async () => {
    script.push(429, 500);
    calls = 0;
    expect(await invoker().invokeEvent('f', new Uint8Array())).toEqual({ statusCode: 202 });
    expect(calls).toBe(3);
  });

  it('gives up after three attempts, naming Lambda’s error', async () => {
    script.push(503, 503, 503);
    calls = 0;
    await expect(invoker().invokeEvent('f', new Uint8Array())).rejects.toMatchObject({ name: 'ServiceException', statusCode: 503 });
    expect(calls).toBe(3);
  });

  it('does not try a refused request again', async () => {
    script.push(400);
    calls = 0;
    await expect(invoker().invokeEvent('f', new Uint8Array())).rejects.toMatchObject({ name: 'ServiceException', statusCode: 400 });
    expect(calls).toBe(1);
  });

  it('tries again when the request got no answer at all', async () => {
    const closed = new SignedLambdaInvoker({ env: { AWS_REGION: 'us-east-1' }, endpoint: 'http://127.0.0.1:9', credentials });
    await expect(closed.invokeEvent('f', new Uint8Array())).rejects.toMatchObject({ name: 'NetworkingError', statusCode: 0 });
  });
});
