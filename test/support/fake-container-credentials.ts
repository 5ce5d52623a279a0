// A fake of ECS's container credentials endpoint on 127.0.0.1, where
// AWS_CONTAINER_CREDENTIALS_FULL_URI points as ECS (or ECS Anywhere) would set it: a GET of its
// one path with the right Authorization token answers the task role's temporary credentials in
// the endpoint's JSON (AccessKeyId, SecretAccessKey, Token, Expiration), as the SDK's HTTP
// credential provider reads them; anything else is refused. Each request is recorded. The
// access key is an emulator account id, so a call signed with anything else misses the
// provisioned queues and secret.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CredentialsRequest {
  path: string;
  authorization: string | undefined;
  answered: number;
}

export interface FakeContainerCredentials {
  /** What ECS would put in AWS_CONTAINER_CREDENTIALS_FULL_URI. */
  fullUri: string;
  /** What ECS would put in AWS_CONTAINER_AUTHORIZATION_TOKEN (or the file AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE names). */
  token: string;
  requests: CredentialsRequest[];
  /** The session token of the credentials answered so far (a fresh one each time). */
  sessionTokens: string[];
  close(): Promise<void>;
}

export async function startFakeContainerCredentials(accessKeyId: string, validForMs = 3_600_000): Promise<FakeContainerCredentials> {
  const path = `/v2/credentials/${randomUUID()}`;
  const token = `container-token-${randomUUID()}`;
  const requests: CredentialsRequest[] = [];
  const sessionTokens: string[] = [];
  const server = createServer((req, res) => {
    const ok = req.method === 'GET' && req.url === path && req.headers.authorization === token;
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization, answered: ok ? 200 : 403 });
    if (!ok) {
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ Code: 'AccessDenied', Message: 'not this task' }));
      return;
    }
    const sessionToken = `session-${randomUUID()}`;
    sessionTokens.push(sessionToken);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        AccessKeyId: accessKeyId,
        SecretAccessKey: 'test',
        Token: sessionToken,
        Expiration: new Date(Date.now() + validForMs).toISOString(),
        RoleArn: `arn:aws:iam::${accessKeyId}:role/fake-task-role`,
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    fullUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    token,
    requests,
    sessionTokens,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
