// The task role's credentials as ECS hands them to the container, taken out of the runtime's
// environment (runtime-image/src/connection/container-credentials.ts). The runtime bundle on the image's
// Node 24 starts with AWS_CONTAINER_CREDENTIALS_FULL_URI (a fake of ECS's endpoint on
// 127.0.0.1) and AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, the task metadata URIs beside them,
// and no other credentials. It re-executes itself without them, and still: its SQS and
// Secrets Manager calls are signed with the endpoint's credentials (the emulator keeps this
// file's queues and secret under the account they name), and so is its Bedrock model call
// (pi-ai's own SDK client). Neither /proc/<pid>/environ nor its process.env (dumped by a
// preload on a signal) names any of them, and the hand-over file is gone. On Node 20, which
// cannot re-execute itself, the same start is refused, naming the variable and never its value.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HANDOFF_FILE } from '../../runtime-image/src/connection/container-credentials.ts';
import { awsTestEnv } from '../support/aws.ts';
import { startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock.ts';
import { startFakeContainerCredentials, type FakeContainerCredentials } from '../support/fake-container-credentials.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franOnBedrock } from '../support/bedrock-fleet.ts';

const NODE24 = inject('node24');
const BUNDLE = join(process.cwd(), 'runtime-image', 'dist', 'main.mjs');
const METADATA_URI = `http://169.254.170.2/v4/${crypto.randomUUID()}`;

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
let endpoint: FakeContainerCredentials;
let bedrock: FakeBedrock;
let fleet: ProvisionedFleet;
let dir: string;
let tokenFile: string;
let env: Record<string, string>;
let runtime: RuntimeProcess | undefined;

/** The environment as ECS gives it: the runtime's settings, the container variables, no static credentials. */
function containerEnv(state: string): Record<string, string> {
  const { AWS_ACCESS_KEY_ID: _key, AWS_SECRET_ACCESS_KEY: _secret, ...rest } = env;
  return {
    ...rest,
    CLAWFLEET_RUNTIME_STATE: state,
    AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.fullUri,
    AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: tokenFile,
    ECS_CONTAINER_METADATA_URI_V4: METADATA_URI,
    ECS_CONTAINER_METADATA_URI: METADATA_URI,
  };
}

beforeAll(async () => {
  dir = tempDir('cf-task-creds-');
  endpoint = await startFakeContainerCredentials(aws.accountId);
  tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, endpoint.token, { mode: 0o600 });
  // HTTP/2, as the client speaks it by default (bedrock-proxy.test.ts runs its HTTP/1.1 switches).
  bedrock = await startFakeBedrock({ http2: true });
  const config = franOnBedrock('taskcred', bedrock.baseUrl);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: {} } });
  env = emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', {
    CLAWFLEET_WORKSPACE: join(dir, 'workspace'),
    CLAWFLEET_HEALTH_FILE: join(dir, 'alive'),
  });
}, 90_000);

afterAll(async () => {
  await runtime?.kill('SIGKILL');
  await endpoint?.close();
  await bedrock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the task role’s credentials, out of the runtime’s environment (Node 24, the bundle)', () => {
  it('signs its queue, secret and Bedrock calls with the endpoint’s credentials, with no variable of ECS left in its environ or process.env', async () => {
    const state = join(dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    const dump = join(dir, 'process-env.json');
    const probe = join(dir, 'env-probe.mjs');
    // Test instrumentation only: a preload (kept across the re-execution with the rest of
    // execArgv) that writes the runtime's process.env when asked.
    writeFileSync(
      probe,
      `import { writeFileSync } from 'node:fs';\nprocess.on('SIGUSR2', () => writeFileSync(${JSON.stringify(dump)}, JSON.stringify(process.env)));\n`,
    );
    runtime = startRuntime(containerEnv(state), [NODE24, '--import', probe, '--enable-source-maps', BUNDLE]);
    await runtime.waitFor((l) => l.msg === 'ready', 60_000);

    const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'taskcred.1', 'hello with the task role', 30_000);
    expect(reply, runtime.output().slice(-3000)).toMatchObject({ inReplyTo: 'taskcred.1', text: 'echo' });
    // The endpoint was asked, with the token from the file, and nothing else reached it.
    expect(endpoint.requests.length).toBeGreaterThan(0);
    expect(endpoint.requests.every((r) => r.answered === 200 && r.authorization === endpoint.token)).toBe(true);
    // Bedrock's client (pi-ai's) signed with the endpoint's key too.
    expect(bedrock.calls.length).toBeGreaterThan(0);
    expect(bedrock.calls[0]!.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${aws.accountId}/`));

    const pid = runtime.child.pid!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    // The probe is real: the rest of the environment is there.
    expect(environ).toContain('CLAWFLEET_AGENT_ID=fran');
    expect(environ).not.toContain(endpoint.fullUri);
    expect(environ).not.toContain(tokenFile);
    expect(environ).not.toContain(METADATA_URI);
    expect(environ).not.toMatch(/AWS_CONTAINER_|ECS_CONTAINER_METADATA/);
    process.kill(pid, 'SIGUSR2');
    await expect.poll(() => existsSync(dump)).toBe(true);
    const processEnv = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    expect(processEnv.CLAWFLEET_AGENT_ID).toBe('fran');
    expect(Object.keys(processEnv).filter((k) => /^(AWS_CONTAINER_|ECS_CONTAINER_)/.test(k))).toEqual([]);
    expect(JSON.stringify(processEnv)).not.toContain(endpoint.token);
    expect(JSON.stringify(processEnv)).not.toContain(endpoint.fullUri);
    // The hand-over file was taken and deleted; the log says so, and nothing of the settings.
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
    expect(runtime.lines).toContainEqual(expect.objectContaining({ msg: 'task credentials taken out of the environment', endpoint: 'full' }));
    for (const secret of [endpoint.fullUri, endpoint.token, ...endpoint.sessionTokens]) expect(runtime.output()).not.toContain(secret);
    expect(await runtime.kill('SIGTERM')).toBe(0);
    runtime = undefined;
  });

  // The machines' Node is 20 (docs/testing.md); a Node with process.execve would re-execute instead.
  it.skipIf('execve' in process)('refuses to start on Node 20 with them in its environment, naming the variable and not its value', async () => {
    const state = join(dir, 'state-node20');
    mkdirSync(state, { mode: 0o700 });
    chmodSync(state, 0o700);
    const node20 = startRuntime(containerEnv(state), [process.execPath, '--enable-source-maps', BUNDLE]);
    const exited = await Promise.race([node20.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000))]);
    if (exited === 'running') await node20.kill('SIGKILL');
    expect(exited).toBe(1);
    expect(node20.output()).toMatch(/AWS_CONTAINER_CREDENTIALS_FULL_URI: is set \(ECS's task credentials\), and Node v20\.\d+\.\d+ cannot re-execute itself/);
    expect(node20.output()).not.toContain(endpoint.fullUri);
    expect(existsSync(join(state, HANDOFF_FILE))).toBe(false);
  });
});
