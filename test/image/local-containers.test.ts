// `clawfleet start --containers`: the local fleet with each agent's runtime a container of the
// runtime image (the stage built by the image project's setup, as infra builds it), run by
// local/container-supervisor.ts. A chat message through the dashboard API is answered from the
// container; the container is run as the agent's task definition says where that makes sense
// on one machine (root only to drop to the tool uid pool, the dropped capabilities, its cpus
// and memory, no swap); its token and model key reach it on stdin, never in its environment;
// a SIGKILL of one container restarts that agent alone; hibernate and wake stop and start its
// container; exec runs as a tool uid inside; a stopped fleet leaves no container.
import { spawn } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { ContainerSupervisor } from '../../local/container-supervisor.ts';
import { FLEET_LABEL, RUNTIME_DROPPED_CAPABILITIES, RUNTIME_STOP_SECONDS } from '../../local/container-spec.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { docker, dockerRun } from '../support/docker-cli.ts';
import { writeFigures } from '../support/figures.ts';
import { inspectContainer } from '../support/engine-api.ts';
import { numberedExecResponder } from '../support/exec-turns.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { captureIO } from '../unit/cli-io.ts';

const SKIP = inject('imageSkip');
const FRAN_KEY = 'sk-test-fran-containers-0123456789';
const GUS_KEY = 'sk-test-gus-containers-9876543210';
/** The container's first start takes the image's layers up; a loaded 2-core machine is slow at it. */
const READY_MS = 180_000;

let dir: string;
let model: FakeModel;
let fleet: LocalFleet;
let containers: ContainerSupervisor;
let stopped = false;
/** The state of the fleet the last test SIGKILLs. */
let killedFleetDir: string | undefined;
/** Measured, never asserted: test-artifacts/figures/local-containers.json (docs/benchmarks.md). */
const figures: Record<string, number> = {};

/** Each `run#<n>: <command>` turn calls exec once; what exec returned is kept here. */
const results = new Map<string, string>();
const responder = numberedExecResponder(results);

async function replyTo(agentId: string, text: string, timeout = READY_MS): Promise<void> {
  const res = await postChat(fleet, agentId, text);
  expect(res.status).toBe(202);
  await expect
    .poll(async () => (await chatLines(fleet, agentId)).some((m) => m.role === 'agent' && m.text === `echo: ${text}`), { timeout, interval: 250 })
    .toBe(true);
}

let runs = 0;
/** Has fran run `command` with exec; returns what the command printed (exec's own first line dropped). */
async function exec(command: string): Promise<string> {
  const id = String(++runs);
  expect((await postChat(fleet, 'fran', `run#${id}: ${command}`)).status).toBe(202);
  await expect.poll(() => results.has(id), { timeout: READY_MS, interval: 250 }).toBe(true);
  return results.get(id)!.split('\n').slice(1).join('\n');
}

async function clawfleet(...argv: string[]): Promise<{ code: number; out: string }> {
  const io = captureIO({ cwd: dir });
  const code = await runCli([...argv, '--state', 'state'], io);
  return { code, out: io.outText() };
}

const containerOf = (agentId: string): string => {
  const name = containers.container(agentId);
  if (!name) throw new Error(`${agentId} has no container running`);
  return name;
};

describe.skipIf(SKIP)(SKIP ? `local fleet with --containers — SKIPPED: ${SKIP}` : 'local fleet with --containers', () => {
  beforeAll(async () => {
    dir = tempDir('cf-local-containers-');
    model = await startModel({ responder });
    writeFileSync(
      join(dir, 'clawfleet.json'),
      JSON.stringify({
        fleet: 'ctrs',
        agents: {
          defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
          list: [{ id: 'fran', default: true }, { id: 'gus' }],
        },
        models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', baseUrl: model.baseUrls['openai-completions'] } } },
      }),
    );
    writeFileSync(
      join(dir, 'secrets.json'),
      JSON.stringify({ 'clawfleet/ctrs/agents/fran': { OPENAI_API_KEY: FRAN_KEY }, 'clawfleet/ctrs/agents/gus': { OPENAI_API_KEY: GUS_KEY } }),
    );
    const t0 = performance.now();
    fleet = await startFleet({ dir, runtimes: 'containers', runtimeImages: { runtime: inject('images').runtime.tag }, running: 'all', timeoutMs: READY_MS });
    if (!(fleet.supervisor instanceof ContainerSupervisor)) throw new Error('runtimes "containers" did not start the container launcher');
    containers = fleet.supervisor;
    figures.fleetStartToTwoReadyMs = Math.round(performance.now() - t0);
  });

  afterAll(async () => {
    writeFigures('local-containers', figures);
    if (!stopped) await fleet?.stop();
    await model?.close();
    // The image project has no temp-cleanup setup file: this file removes its own.
    for (const d of [dir, killedFleetDir]) if (d) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('answers a chat message through the dashboard API from the container, with the key that reached it on stdin', async () => {
    await replyTo('fran', 'hello from the dashboard');
    const asked = model.requests().filter((r) => r.lastUserText === 'hello from the dashboard');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.headers.authorization === `Bearer ${FRAN_KEY}`)).toBe(true);
  });

  it('runs the container as the task definition says: root only to drop to tool uids, dropped capabilities, its size, no swap, the image', async () => {
    const c = await inspectContainer(containerOf('fran'));
    const host = c.HostConfig as Record<string, unknown>;
    // The engine says each with its CAP_ prefix.
    expect((host.CapDrop as string[]).map((c) => c.replace(/^CAP_/, ''))).toEqual(expect.arrayContaining([...RUNTIME_DROPPED_CAPABILITIES]));
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(512 * 1024 * 1024);
    expect(host.NanoCpus).toBe(0.25e9);
    expect(host.NetworkMode).toBe('host');
    const config = await docker(['inspect', '--format', '{{json .Config}}', containerOf('fran')]);
    const parsed = JSON.parse(config) as { User: string; Image: string; Env: string[]; StopTimeout?: number; Labels: Record<string, string> };
    expect(parsed.User).toBe('0');
    expect(parsed.Image).toBe(inject('images').runtime.tag);
    expect(parsed.StopTimeout).toBe(RUNTIME_STOP_SECONDS);
    expect(parsed.Labels[FLEET_LABEL]).toMatch(/^[0-9a-f]{12}$/);
    // The image's own settings stand: the uid pool is the sandbox.
    expect(parsed.Env).toContain('CLAWFLEET_SANDBOX=uid-pool');
  });

  it('keeps the token and the model key out of every environment in the container', async () => {
    const name = containerOf('fran');
    const env = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Env}}', name])) as string[];
    const all = `${env.join('\n')}\n${await docker(['exec', name, '/bin/sh', '-c', 'cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n"'])}`;
    expect(all).toContain('CLAWFLEET_AGENT_ID=fran');
    expect(all).not.toContain(FRAN_KEY);
    expect(all).not.toContain(GUS_KEY);
    expect(all).not.toMatch(/CLAWFLEET_(SECRETS|RUNTIME_TOKEN)=/);
  });

  it('runs exec as a tool uid inside, which cannot write the runtime state or read the runtime', async () => {
    const out = await exec('id -u; id -g; touch /var/lib/clawfleet/x 2>&1 || echo state-refused; cat /proc/1/environ >/dev/null 2>&1 || echo environ-refused');
    const [uid, gid, ...rest] = out.trim().split('\n');
    expect(Number(uid)).toBeGreaterThanOrEqual(20001);
    expect(Number(uid)).toBeLessThanOrEqual(20032);
    expect(gid).toBe('20000');
    expect(rest.join('\n')).toContain('state-refused');
    expect(rest.join('\n')).toContain('environ-refused');
  });

  it('restarts only the agent whose container is SIGKILLed', async () => {
    const killed = containerOf('fran');
    const other = containerOf('gus');
    const gusStarted = fleet.supervisor.info('gus').startedAt;
    const t0 = performance.now();
    await docker(['kill', '--signal', 'KILL', killed]);
    await expect
      .poll(() => containers.container('fran') !== killed && fleet.supervisor.state('fran') === 'running', { timeout: READY_MS, interval: 250 })
      .toBe(true);
    figures.killToReadyAgainMs = Math.round(performance.now() - t0); // 1 s of it the restart's backoff
    expect(fleet.supervisor.info('fran').restarts).toBe(1);
    expect(fleet.supervisor.info('fran').lastExit?.code).toBe(137);
    // gus: the same container, never restarted, still answering.
    expect(containers.container('gus')).toBe(other);
    expect(fleet.supervisor.info('gus')).toMatchObject({ restarts: 0, startedAt: gusStarted, state: 'running' });
    // The killed one is gone from the engine (--rm), and its successor answers.
    expect((await dockerRun(['container', 'inspect', killed])).code).not.toBe(0);
    await replyTo('fran', 'back after the kill');
    await replyTo('gus', 'gus still here');
  });

  it('hibernates an agent (its container stopped and gone) and wakes it on a message', async () => {
    const before = containerOf('gus');
    const hibernated = await clawfleet('runtime', 'hibernate', '--agent', 'gus');
    expect(hibernated).toMatchObject({ code: 0 });
    expect(hibernated.out).toContain('gus: asleep');
    expect(containers.container('gus')).toBeUndefined();
    expect((await dockerRun(['container', 'inspect', before])).code).not.toBe(0);
    // The runtime drained and exited on SIGTERM (docker stop), not killed at the stop timeout.
    expect(fleet.supervisor.info('gus').lastExit?.code).toBe(0);
    const t0 = performance.now();
    await replyTo('gus', 'wake up, gus');
    figures.wakeToFirstReplyMs = Math.round(performance.now() - t0);
    expect(containers.container('gus')).not.toBe(before);
  });

  it('leaves no container of the fleet once it stops', async () => {
    const scope = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Labels}}', containerOf('fran')]))[FLEET_LABEL] as string;
    stopped = true;
    await fleet.stop();
    const left = await docker(['ps', '--all', '--quiet', '--filter', `label=${FLEET_LABEL}=${scope}`]);
    expect(left).toBe('');
  });

  it('stops its containers when the fleet process is SIGKILLed', async () => {
    const other = tempDir('cf-killed-fleet-');
    killedFleetDir = other;
    cpSync(join(dir, 'clawfleet.json'), join(other, 'clawfleet.json'));
    cpSync(join(dir, 'secrets.json'), join(other, 'secrets.json'));
    const main = new URL('../support/container-fleet-main.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', main, other, inject('images').runtime.tag], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stdout.on('data', (c: Buffer) => (said += c.toString()));
    child.stderr.on('data', (c: Buffer) => (said += c.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await expect.poll(() => said.includes('running'), { timeout: READY_MS, interval: 250 }).toBe(true);
      const label = `label=io.clawfleet.agent=fran`;
      const ours = async () => (await docker(['ps', '--quiet', '--filter', label, '--filter', `label=${FLEET_LABEL}`])).split('\n').filter(Boolean);
      expect(await ours()).toHaveLength(1);
      child.kill('SIGKILL');
      await exited;
      // Its watchdog's pipe ended with it: the container drains and goes, with nobody asking.
      await expect.poll(ours, { timeout: (RUNTIME_STOP_SECONDS + 60) * 1000, interval: 500 }).toEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
