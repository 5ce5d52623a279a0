// λ hooks: external services POST to the Function URL at /hooks/agent, /hooks/wake and
// /hooks/<mapping> (OpenClaw's webhook endpoints); shared/control/hooks.ts does the rest.
import { dynamoPorts, secretsManagerPorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import { handleHook } from '../shared/control/hooks.ts';
import { askingCompute, awsControlPlane } from './control-plane.ts';
import { functionUrlResponse, type FunctionUrlEvent, type FunctionUrlResult } from './function-url.ts';

const cp = await awsControlPlane('hooks', (env) => [dynamoPorts(), sqsPorts(), secretsManagerPorts(), askingCompute(env)]);
const deps = cp.hooksDeps();

export async function handler(event: FunctionUrlEvent): Promise<FunctionUrlResult> {
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  const result = await handleHook(
    { method: event.requestContext.http.method, path: event.rawPath, query: event.rawQueryString, headers: event.headers, body },
    deps,
  );
  const response = functionUrlResponse(result);
  if (result.status === 405) response.headers.allow = 'POST';
  return response;
}
