// A fake AWS service speaking the JSON 1.1 protocol (Cost Explorer, Service Quotas), for
// adapter tests of services the emulator lacks: it records each call (operation from
// X-Amz-Target, the JSON body) and answers what the test's handler returns — a body as AWS
// returns it (the tests use shapes recorded from AWS's API reference), or an error as AWS
// sends one (HTTP 400 with `__type` and `message`).
import { listenLocal, type LocalServer } from './fake-http.ts';

export interface AwsJsonCall {
  operation: string;
  body: Record<string, unknown>;
}

export type AwsJsonAnswer = { body: unknown } | { error: string; message: string; status?: number };

export interface FakeAwsJson extends LocalServer {
  calls: AwsJsonCall[];
}

export async function startFakeAwsJson(answer: (call: AwsJsonCall) => AwsJsonAnswer): Promise<FakeAwsJson> {
  const calls: AwsJsonCall[] = [];
  const server = await listenLocal((req, res, raw) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const call = { operation: target.slice(target.indexOf('.') + 1), body: raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {} };
    calls.push(call);
    const a = answer(call);
    const type = 'application/x-amz-json-1.1';
    if ('error' in a) {
      res.writeHead(a.status ?? 400, { 'content-type': type, 'x-amzn-errortype': a.error, 'x-amzn-requestid': 'fake-request' });
      res.end(JSON.stringify({ __type: a.error, message: a.message }));
      return;
    }
    res.writeHead(200, { 'content-type': type, 'x-amzn-requestid': 'fake-request' });
    res.end(JSON.stringify(a.body));
  });
  return { ...server, calls };
}
