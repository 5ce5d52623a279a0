// The runtime image attacked from inside, through exec's real path: the deployed fleet's
// fran, run as its task definition says with ECS's credentials endpoint at 169.254.170.2
// answering the task role's credentials at the relative URI in the container's environment
// (test/support/task-runner.ts); the model asks for `exec`, which the runtime runs as a tool
// uid (setpriv), and the tool's output comes back to the fake model. As that uid: the
// credentials URI is learned from nowhere and the endpoint gives nothing without it; no set-id
// file or capability is left to climb back with; the runtime's state cannot be written; a
// memory hog and a fork bomb end inside the task's limits, the runtime answering after each;
// orphans the call leaves are reaped. Each test says what the wall is when it fails.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsTestEnv } from '../support/aws.ts';
import { docker } from '../support/docker-cli.ts';
import { writeFigures } from '../support/figures.ts';
import { type FakeModel } from '../support/fake-model.ts';
import { textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { type DeployedFleet } from '../support/image-deploy.ts';
import { numberedExecResponder } from '../support/exec-turns.ts';
import { deployFranOnImage, postFranUpdate } from '../support/fran-image-fleet.ts';
import { agentTasks, type AgentTasks } from '../support/image-task.ts';
import type { TaskRun } from '../support/task-runner.ts';
import { TOOL_PROCESS_LIMIT } from '../../shared/adapters/sandbox/uid-pool-sandbox.ts';

const SKIP = inject('imageSkip');
const aws = awsTestEnv();
const BOT_TOKEN = '1000029:AAfran-image-attack-token-0000000000';
const MODEL_KEY = 'sk-test-fran-image-attack-0123456789';
const CHAT = 5002;
/**
 * Not the task definition's: keeps a fork bomb off this shared machine's pids if the call's
 * own limit ever fails (task-runner.ts). Before that limit existed, a bomb filled all of it and
 * the runtime, unable to fork, never ended the call.
 */
const PIDS_SAFETY_NET = 4096;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: DeployedFleet;
let fran: AgentTasks;
let task: TaskRun;
let updateId = 2900;
const figures: Record<string, unknown> = {};

/** Each `run#<n>: <command>` turn calls exec once; its result is kept here and the turn ends. */
const results = new Map<string, string>();
const responder = numberedExecResponder(results);

let runs = 0;
/** Has fran run `command` with exec (through the deployed webhook); returns what exec returned. */
async function exec(command: string, timeoutMs = 180_000): Promise<string> {
  const id = String(++runs);
  const res = await postFranUpdate(fleet, BOT_TOKEN, textUpdate({ updateId: ++updateId, chatId: CHAT, fromId: CHAT, text: `run#${id}: ${command}` }));
  expect(res.status).toBe(200);
  await expect.poll(() => results.has(id), { timeout: timeoutMs, interval: 250 }).toBe(true);
  // exec's first line is its own ("exit code 0", "killed after 60 s"); the rest is the command's.
  return results.get(id)!.split('\n').slice(1).join('\n');
}

/** An ordinary turn, answered: the runtime is still there and working. */
async function stillAnswers(): Promise<void> {
  const text = `still there ${++updateId}`;
  await postFranUpdate(fleet, BOT_TOKEN, textUpdate({ updateId, chatId: CHAT, fromId: CHAT, text }));
  await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.text === `echo: ${text}`), { timeout: 90_000, interval: 250 }).toBe(true);
}

describe.skipIf(SKIP)(SKIP ? `the runtime image attacked from inside — SKIPPED: ${SKIP}` : 'the runtime image attacked from inside, as a tool uid', () => {
  beforeAll(async () => {
    ({ tg, model, fleet } = await deployFranOnImage(aws, {
      image: inject('images').runtime.tag,
      botToken: BOT_TOKEN,
      modelKey: MODEL_KEY,
      chat: CHAT,
      responder,
    }));
    fran = await agentTasks(aws, fleet, 'fran', inject('images').runtime.tag, [Number(new URL(model.url).port)]);
    task = await fran.start({ pidsLimit: PIDS_SAFETY_NET });
    expect(task.lines).toContainEqual(expect.objectContaining({ msg: 'ready', sandbox: 'uid-pool' }));
  }, 600_000);

  afterAll(async () => {
    await task?.remove();
    fran?.remove();
    fleet?.remove();
    await tg?.close();
    await model?.close();
    writeFigures('image-attacks', figures);
  });

  it('runs exec as a tool uid that learns the credentials URI from nowhere, and gets nothing from the endpoint without it', async () => {
    const probes = ['/', '/v2/credentials', '/v2/credentials/', `/v2/credentials/${crypto.randomUUID()}`, '/v2/metadata', '/v4/', '/v3/'];
    const fetchScript = `for (const p of ${JSON.stringify(probes)}) { try { const r = await fetch('http://169.254.170.2' + p); console.log('probe', p, r.status, await r.text()); } catch (e) { console.log('probe', p, 'failed', e.message); } }`;
    const saw = await exec(
      [
        'echo "uid $(id -u) groups $(id -G)"',
        `tr '\\0' '\\n' </proc/$PPID/environ`,
        `tr '\\0' '\\n' </proc/1/environ`,
        'head -c 64 /proc/$PPID/mem',
        'cat /proc/$PPID/maps | head -3',
        'for f in /proc/[0-9]*/environ /proc/[0-9]*/task/*/environ; do tr "\\0" "\\n" <"$f"; done',
        'grep -rs "credentials" /proc/[0-9]*/cmdline',
        'echo "== env"; env',
        `node --input-type=module -e "${fetchScript.replace(/"/g, '\\"')}"`,
      ]
        .map((c) => `{ ${c}; } 2>&1`)
        .join('\n'),
    );
    const uid = Number(/^uid (\d+) groups (\d+)$/m.exec(saw)?.[1]);
    expect(uid).toBeGreaterThanOrEqual(20001);
    expect(uid).toBeLessThanOrEqual(20032);
    expect(saw).toMatch(/^uid \d+ groups 20000$/m);
    expect(saw).not.toContain(task.credentialsUri);
    expect(saw).not.toContain(task.credentialsUri.split('/').at(-1)); // not even the id alone
    expect(saw).toMatch(/\/proc\/\d+\/environ: Permission denied/);
    expect(saw).toMatch(/\/proc\/1\/environ: Permission denied/);
    expect(saw).toMatch(/\/mem'?(?: for reading)?: Permission denied/);
    const env = saw.slice(saw.indexOf('== env'), saw.indexOf('probe'));
    expect(env).not.toMatch(/^(AWS|ECS)_/m);
    // The endpoint is reachable (it is on Fargate too), and answers nothing but the URI it gave.
    for (const p of probes) expect(saw).toMatch(new RegExp(`^probe ${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} 400 .*Unable to find credentials`, 'm'));
    expect(saw).not.toMatch(/SecretAccessKey|"Token"/);
    const probed = task.credentialRequests.filter((r) => probes.includes(r.path));
    expect(probed).toHaveLength(probes.length);
    Object.assign(figures, { toolUid: uid, refusedReads: (saw.match(/Permission denied/g) ?? []).length, endpointProbesRefused: probed.length });
  });

  // Issue #27 item 3 ("nothing in the container for a race to find"): a root file tool tricked
  // by a path race could read the runtime's /proc/self/environ, so the runtime re-executes
  // itself without ECS's credentials settings (container-credentials.ts). Issue #28: PID 1 too
  // — the image's entry (launch.ts) hands them over and becomes tini without them — and the
  // health check's node, which `env -u` starts without them. Red before launch.ts: tini's
  // /proc/1/environ held the URI.
  it('keeps the credentials URI out of every process’s environment in the container: PID 1 (tini), the runtime, the health check', async () => {
    // Read from the host, as root: every process of the container, after a health check has run.
    await expect.poll(async () => (await task.state()).Health?.Status, { timeout: 120_000, interval: 1_000 }).toBe('healthy');
    const processes = await task.processes();
    // tini and the runtime at least (Node names its main thread MainThread).
    expect(processes.length).toBeGreaterThanOrEqual(2);
    const tini = (await task.state()).Pid;
    const environs = processes.map((p) => ({ ...p, environ: readFileSync(`/proc/${p.pid}/environ`, 'utf8') }));
    // The probe reads real environments: the runtime's settings are in tini's and the runtime's.
    expect(environs.find((p) => p.pid === tini)?.environ).toContain('CLAWFLEET_AGENT_ID=fran');
    expect(environs.find((p) => p.pid === tini)?.comm).toBe('tini');
    const runtime = await task.runtimePid();
    expect(environs.find((p) => p.pid === runtime)?.environ).toContain('CLAWFLEET_AGENT_ID=fran');
    for (const p of environs) {
      expect(p.environ, `${p.comm} (pid ${p.pid})`).not.toContain(task.credentialsUri);
      expect(p.environ, `${p.comm} (pid ${p.pid})`).not.toMatch(/(^|\0)(AWS_CONTAINER_|ECS_CONTAINER_METADATA)/);
    }
    // The health check's process starts with the container's environment (as `docker exec`
    // does, the URI in it): its command up to node, with a script that prints node's own environ.
    const [, ...check] = fran.taskDefinition.containerDefinitions[0]!.healthCheck!.command;
    const upToNode = check.slice(0, check.indexOf('node') + 1);
    expect(upToNode.length).toBeGreaterThan(1);
    const asDockerExecs = await docker(['exec', task.id, 'sh', '-c', 'tr "\\0" "\\n" </proc/self/environ']);
    expect(asDockerExecs).toContain(task.credentialsUri); // what the check's process is given
    const nodeSees = await docker([
      'exec',
      task.id,
      ...upToNode,
      '-e',
      "process.stdout.write(require('fs').readFileSync('/proc/self/environ','utf8').replaceAll('\\0','\\n'))",
    ]);
    expect(nodeSees).toContain('CLAWFLEET_HEALTH_FILE=/tmp/clawfleet-alive');
    expect(nodeSees).not.toContain(task.credentialsUri);
    expect(nodeSees).not.toMatch(/^(AWS_CONTAINER_|ECS_CONTAINER_METADATA)/m);
    Object.assign(figures, { processesWithoutUri: environs.length });
  });

  it('leaves the tool uid no set-id file and no capability to climb back with', async () => {
    const saw = await exec('find / -xdev -type f -perm /6000 2>/dev/null; echo "== caps"; grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status');
    const [found, caps] = saw.split('== caps');
    expect(found!.trim()).toBe('');
    for (const field of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(caps).toMatch(new RegExp(`^${field}:\\s+0{16}$`, 'm'));
    expect(caps).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it('cannot write, list or remove the runtime’s state, its health file or its code', async () => {
    const before = (await docker(['exec', task.id, 'cat', '/tmp/clawfleet-alive'])).trim();
    const saw = await exec(
      [
        'ls /var/lib/clawfleet',
        'touch /var/lib/clawfleet/planted',
        'echo 9999999999999 > /tmp/clawfleet-alive',
        'rm -f /tmp/clawfleet-alive',
        'touch /app/dist/planted',
        'echo x >> /app/dist/main.mjs',
      ]
        .map((c) => `{ ${c}; } 2>&1; echo "exit $?"`)
        .join('\n'),
    );
    expect(saw.match(/^exit 0$/gm) ?? []).toEqual([]);
    expect(saw.match(/Permission denied|Operation not permitted/g)?.length).toBeGreaterThanOrEqual(6);
    // Seen as root from outside: nothing planted, the health file the runtime's and still fresh.
    expect(await docker(['exec', task.id, 'sh', '-c', 'ls -A /var/lib/clawfleet /app/dist | grep -c planted || true'])).toBe('0');
    await expect
      .poll(async () => (await docker(['exec', task.id, 'cat', '/tmp/clawfleet-alive'])).trim() !== before, { timeout: 30_000, interval: 1_000 })
      .toBe(true);
    expect(await docker(['exec', task.id, 'stat', '-c', '%u', '/tmp/clawfleet-alive'])).toBe('0');
  });

  it('ends a memory hog inside the task’s memory, the runtime answering after it', async () => {
    const runtimePid = await task.runtimePid();
    const oomKills = async () => Number(/^oom_kill (\d+)$/m.exec(await task.cgroupFile('memory', 'memory.oom_control'))?.[1]);
    const killsBefore = await oomKills();
    const saw = await exec(`node -e 'const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))'; echo "exit $?"`);
    figures.memoryHog = saw.trim();
    // The task's OOM killer ended the hog (SIGKILL: 128 + 9) when the task's memory was full.
    expect(saw).toMatch(/^exit 137$/m);
    expect(await oomKills()).toBe(killsBefore + 1);
    const peak = Number(await task.cgroupFile('memory', 'memory.max_usage_in_bytes'));
    expect(peak).toBeLessThanOrEqual(fran.taskDefinition.memory * 1024 * 1024);
    figures.memoryPeakBytes = peak;
    expect((await task.state()).Running).toBe(true);
    expect(await task.runtimePid()).toBe(runtimePid);
    await stillAnswers();
  });

  it('ends a fork bomb at the call’s process limit, the runtime answering after it and nothing of the call left', async () => {
    const runtimePid = await task.runtimePid();
    let peak = 0;
    let bombing = true;
    const sampling = (async () => {
      while (bombing) {
        const tools = (await task.processes().catch(() => [])).filter((p) => p.uid >= 20001 && p.uid <= 20032).length;
        peak = Math.max(peak, tools);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const saw = await exec('bomb() { bomb | bomb & }; bomb; sleep 20; echo "the call outlived its bomb"').finally(() => (bombing = false));
    await sampling;
    figures.forkBombPeakProcesses = peak;
    // The bomb ran into the call's own limit ("Cannot fork"), not the task's memory or pids.
    expect(saw).toContain('Cannot fork');
    expect(peak).toBeGreaterThan(100);
    expect(peak).toBeLessThanOrEqual(TOOL_PROCESS_LIMIT);
    expect((await task.state()).Running).toBe(true);
    expect(await task.runtimePid()).toBe(runtimePid);
    await expect.poll(async () => (await task.processes()).filter((p) => p.uid >= 20001 && p.uid <= 20032), { timeout: 60_000, interval: 1_000 }).toEqual([]);
    await stillAnswers();
  });

  it('reaps the orphans a call leaves: tini adopts them, and none is left a zombie', async () => {
    const saw = await exec(
      'for i in 1 2 3 4 5; do (sleep 300 &); done; sleep 1; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && grep PPid $p/status; done | sort | uniq -c',
    );
    // Their parent gone, the kernel gave the five sleeps to PID 1: tini.
    expect(saw).toMatch(/^\s*5 PPid:\s+1$/m);
    // The call's end killed them: tini waited for each, so no zombie stays in the process table.
    await expect
      .poll(async () => (await task.processes()).filter((p) => p.state.startsWith('Z') || p.comm === 'sleep'), { timeout: 30_000, interval: 500 })
      .toEqual([]);
  });
});
