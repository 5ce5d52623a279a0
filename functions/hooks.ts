// λ hooks: external services POST to the Function URL at /hooks/agent, /hooks/wake and
// /hooks/<mapping> (OpenClaw's webhook endpoints); shared/control/hooks.ts does the rest.
import { randomUUID } from 'node:crypto';
import { handleHook } from '../shared/control/hooks.ts';
import { createControlPlane } from './control-plane.ts';
import { functionUrlResponse, type FunctionUrlEvent, type FunctionUrlResult } from './function-url.ts';

const cp = createControlPlane(process.env, 'hooks');
const deps = { ...cp, hooksToken: () => cp.hooksToken(), newId: () => randomUUID() };

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
