// Issue #12, "Why" 2: on AWS, exec ran as the runtime's own user, so the runtime's
// /proc/<pid>/environ gave AWS_CONTAINER_CREDENTIALS_RELATIVE_URI — and one request to
// 169.254.170.2 the task role's credentials. Issue #27 item 3: nothing of it may stay in the
// runtime's environment either, for a file tool's race through /proc to find. Here the runtime
// bundle runs as the image runs it: `node dist/main.mjs` on the image's Node 24, as root, the
// uid pool configured as the Dockerfile configures it, and the container variables in its
// environment as ECS puts them there — the credentials' full URI pointing at a fake of ECS's
// endpoint on 127.0.0.1 with its token, and no other credentials — against the emulator's
// queues and secret. The runtime re-executes itself without them: its queue and secret calls
// are signed with the endpoint's credentials, and its /proc/<pid>/environ holds none of them.
// The agent's exec (dropped to a tool uid) tries every way to read them — its parent's
// environ, every /proc/*/environ, the runtime's memory — and its own environment has no AWS_*
// value; a `setsid` child it starts is gone when the call ends. The uid pool needs root:
// elsewhere this is skipped, saying so in its name.
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { processesOf } from '../../shared/adapters/sandbox/uid-pool-sandbox.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { livingWith, uniqueSleep } from '../support/processes.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { writeFigures } from '../support/figures.ts';
import { execResultResponder, RESULT_PREFIX } from '../support/exec-turns.ts';
import { startFakeContainerCredentials, type FakeContainerCredentials } from '../support/fake-container-credentials.ts';
import { ensureNode24 } from '../../local/openclaw-install.ts';
import { expectNoSecretsIn } from '../fault/fault-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ROOT = process.getuid?.() === 0;
const TITLE = ROOT
  ? 'the runtime as the container runs it (root, dropping exec to a tool uid)'
  : 'the runtime as the container runs it — SKIPPED: these tests are not running as root, which dropping to the tool uids needs';
/** This file's own tool uids (kill -1 as a uid reaches every process of it, so no other test shares them). */
const UIDS = { first: 20101, last: 20104, gid: 20100 };
const KEY = 'sk-test-container-fran-0123456789abcdef';
const METADATA_URI = `http://169.254.170.2/v4/${crypto.randomUUID()}`;

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
let model: FakeModel;
let endpoint: FakeContainerCredentials;
let fleet: ProvisionedFleet;
let workspace: string;
let root: string | undefined;
let runtime: RuntimeProcess | undefined;
const figures: Record<string, unknown> = {};

const responder = execResultResponder(30);

let sent = 0;
/** Sends `run: <command>` to fran's queue and returns the exec result its reply carries. */
async function exec(command: string): Promise<string> {
  const id = `ctr.${++sent}`;
  const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', id, `run: ${command}`, 30_000);
  if (reply) return reply.text.replace(RESULT_PREFIX, '');
  throw new Error(`no reply to ${id}; runtime output:\n${runtime?.output().slice(-3000)}`);
}

describe.skipIf(!ROOT)(TITLE, () => {
  beforeAll(async () => {
    root = tempDir('cf-container-');
    // As in the image: the app and /workspace reachable by the tool uids, the runtime's state root's alone.
    chmodSync(root, 0o711);
    const app = join(root, 'app');
    execFileSync(process.execPath, ['runtime-image/build.mjs', join(app, 'dist')], { stdio: 'ignore' });
    cpSync('runtime-image/templates', join(app, 'templates'), { recursive: true });
    workspace = join(root, 'workspace');
    const state = join(root, 'state');
    mkdirSync(state, { mode: 0o700 });
    model = await startModel({ apiKey: KEY, responder });
    endpoint = await startFakeContainerCredentials(aws.accountId);
    const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    example.fleet = 'ctr';
    example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
    const config = parseConfig(example);
    fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: { OPENAI_API_KEY: KEY } } });
    // No static credentials: only what ECS gives a container.
    const {
      AWS_ACCESS_KEY_ID: _key,
      AWS_SECRET_ACCESS_KEY: _secret,
      ...runtimeEnv
    } = emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', {
      CLAWFLEET_WORKSPACE: workspace,
      CLAWFLEET_RUNTIME_STATE: state,
      // What the Dockerfile sets: the uid pool, not bubblewrap.
      CLAWFLEET_SANDBOX: 'uid-pool',
      CLAWFLEET_TOOL_UIDS: `${UIDS.first}-${UIDS.last}`,
      CLAWFLEET_TOOL_GID: String(UIDS.gid),
    });
    runtime = startRuntime(
      {
        ...runtimeEnv,
        NODE_ENV: 'production',
        // What ECS puts in the container's environment (the full URI and its token, as on ECS
        // Anywhere: on Fargate the relative one, whose host no test can serve).
        AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.fullUri,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: endpoint.token,
        ECS_CONTAINER_METADATA_URI_V4: METADATA_URI,
      },
      [ensureNode24().node, '--enable-source-maps', join(app, 'dist/main.mjs')],
    );
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
  }, 120_000);

  afterAll(async () => {
    await runtime?.kill('SIGKILL');
    await model?.close();
    await endpoint?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('starts with the uid pool as its sandbox and exec on, warning about nothing', () => {
    expect(runtime!.lines).toContainEqual(
      expect.objectContaining({ msg: 'sandbox for code the agent chooses', sandbox: expect.stringMatching(/^tool uids 20101–20104/) }),
    );
    expect(runtime!.lines).toContainEqual(expect.objectContaining({ msg: 'ready', sandbox: 'uid-pool' }));
    expect(runtime!.lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('keeps none of the container variables in its environment, and signs its queue and secret calls with the endpoint’s credentials', () => {
    const environ = readFileSync(`/proc/${runtime!.child.pid}/environ`, 'utf8');
    // The probe is real: as root, the runtime's environ is readable, and the rest is there.
    expect(environ).toContain('CLAWFLEET_AGENT_ID=fran');
    expect(environ).not.toContain(endpoint.fullUri);
    expect(environ).not.toContain(endpoint.token);
    expect(environ).not.toContain(METADATA_URI);
    expect(environ).not.toMatch(/AWS_CONTAINER_|ECS_CONTAINER_METADATA|AWS_ACCESS_KEY_ID/);
    // It was ready, so it read its secret: with the endpoint's credentials, the only ones it had.
    expect(endpoint.requests.length).toBeGreaterThan(0);
    expect(endpoint.requests.every((r) => r.answered === 200)).toBe(true);
    Object.assign(figures, { credentialsFetches: endpoint.requests.length, containerVariablesInEnviron: /AWS_CONTAINER_|ECS_CONTAINER_/.test(environ) });
  });

  it('runs exec as a tool uid that cannot read the credentials settings from the runtime or anywhere, and has no AWS_* of its own', async () => {
    const saw = await exec(
      [
        'echo "uid $(id -u) groups $(id -G)"',
        `tr '\\0' '\\n' </proc/$PPID/environ`,
        'cat /proc/1/environ',
        'head -c 64 /proc/$PPID/mem',
        'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" <"$f"; done',
        'echo "== env"; env',
      ]
        .map((c) => `{ ${c}; } 2>&1`)
        .join('\n'),
    );
    const uid = Number(/^uid (\d+) groups (\d+)$/m.exec(saw)?.[1]);
    expect(uid).toBeGreaterThanOrEqual(UIDS.first);
    expect(uid).toBeLessThanOrEqual(UIDS.last);
    expect(saw).toMatch(/^uid \d+ groups 20100$/m);
    expect(saw).not.toContain(endpoint.fullUri);
    expect(saw).not.toContain(endpoint.token);
    expect(saw).not.toContain(METADATA_URI);
    expect(saw).not.toContain(KEY);
    expect(saw).toMatch(new RegExp(`/proc/${runtime!.child.pid}/environ: Permission denied`));
    expect(saw).toMatch(new RegExp(`/proc/${runtime!.child.pid}/mem'? for reading: Permission denied`));
    const env = saw.slice(saw.indexOf('== env'));
    expect(env).not.toMatch(/^(AWS|ECS)_/m);
    expect(env).toMatch(/^HOME=.*workspace$/m);
    Object.assign(figures, { toolUid: uid, refusedReads: (saw.match(/Permission denied/g) ?? []).length, credentialsUriSeen: saw.includes(endpoint.fullUri) });
  });

  it('keeps the workspace writable for the tool uid, and the runtime reads what it wrote', async () => {
    const saw = await exec('echo from-the-tool > made-by-exec.txt && cat made-by-exec.txt');
    expect(saw).toContain('from-the-tool');
    expect(readFileSync(join(workspace, 'made-by-exec.txt'), 'utf8')).toBe('from-the-tool\n');
    expect(statSync(join(workspace, 'made-by-exec.txt')).gid).toBe(UIDS.gid);
  });

  it('leaves nothing of the call running: a setsid child is killed with its uid', async () => {
    const marker = uniqueSleep();
    const saw = await exec(`setsid sh -c "sleep ${marker}" >/dev/null 2>&1 </dev/null & echo started`);
    expect(saw).toContain('started');
    await expect.poll(() => livingWith(marker)).toEqual([]);
    for (let uid = UIDS.first; uid <= UIDS.last; uid++) expect(processesOf(uid)).toEqual([]);
    for (let uid = UIDS.first; uid <= UIDS.last; uid++) expect(existsSync(join('/tmp/clawfleet-tools', String(uid)))).toBe(false);
  });

  it('wrote no secret value and not the credentials URI into its own output', () => {
    const scan = new SecretScan();
    scan.addSecrets(KEY, endpoint.fullUri, endpoint.token, ...endpoint.sessionTokens, METADATA_URI);
    scan.addSource('runtime stdout and stderr', () => runtime!.output());
    expectNoSecretsIn(scan, 'container-credentials');
    writeFigures('container-credentials', { command: 'npx vitest run test/security/container-credentials.test.ts', ...figures });
  });
});
