// `workspace push|pull --aws` as a sequence (cli/workspace/aws-transfer.ts) with in-memory
// ports, the one-off task played by the workspace-sync entry's own code on a folder standing
// for the agent's directory on EFS: the agent is held before its workspace is touched and
// released whatever happens, the task starts only once no runtime task is alive, both ends
// verify every file, a resumed transfer sends only what is missing, and the dashboard's
// record is written only for a transfer that completed.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { InMemoryWorkspaceStaging } from '../../shared/adapters/memory/in-memory-workspace-staging.ts';
import { InMemoryWorkspaceSyncLog } from '../../shared/adapters/memory/in-memory-workspace-sync-log.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentTasks, TaskState, WorkspaceTaskRun, WorkspaceTaskRunner } from '../../shared/workspace/task-runner.ts';
import { pullFromAws, pushToAws, type AwsTransferDeps } from '../../cli/workspace/aws-transfer.ts';
import { keepaliveCheck, readSyncEnv, runSync } from '../../runtime-image/src/workspace/workspace-sync.ts';
import { KEEPALIVE_STALE_MS } from '../../shared/workspace/staging.ts';
import { tempDir } from '../support/temp-dirs.ts';

const tmp = (n: string) => tempDir(`cf-wsaws-${n}-`);

/** The task, played in-process: runSync on `efs` with the shared staging, as the container would. */
class InProcessRunner implements WorkspaceTaskRunner {
  readonly runs: (WorkspaceTaskRun & { aliveAtStart: number })[] = [];
  private results = new Map<string, Promise<TaskState>>();
  constructor(
    private readonly efs: string,
    private readonly staging: InMemoryWorkspaceStaging,
    private readonly tasks: FakeTasks,
    private readonly events: string[],
  ) {}
  async start(agentId: string, run: WorkspaceTaskRun): Promise<string> {
    this.events.push(`task ${run.action}`);
    this.runs.push({ ...run, aliveAtStart: this.tasks.count });
    const env = readSyncEnv({
      CLAWFLEET_AGENT_ID: agentId,
      CLAWFLEET_WORKSPACE: this.efs,
      CLAWFLEET_STAGING_BUCKET: 'bucket',
      CLAWFLEET_STAGING_PREFIX: `${agentId}/`,
      CLAWFLEET_SYNC_ACTION: run.action,
      CLAWFLEET_SYNC_TRANSFER: run.transfer,
      CLAWFLEET_SYNC_FORCE: run.force ? '1' : '0',
    });
    const id = `task-${this.runs.length}`;
    this.results.set(
      id,
      runSync(env, this.staging, memoryLogger()).then((r) => ({ done: true, exitCode: r.ok ? 0 : 1, reason: 'Essential container in task exited' })),
    );
    return id;
  }
  async state(taskId: string): Promise<TaskState> {
    return this.results.get(taskId)!;
  }
  async stop(_taskId: string, _reason: string): Promise<void> {}
}

/** The agent's runtime tasks: alive until the hold's stop has gone through and a poll or two passed. */
class FakeTasks implements AgentTasks {
  count = 0;
  async alive(): Promise<number> {
    const n = this.count;
    if (this.count > 0) this.count--;
    return n;
  }
}

function setup(state?: 'awake') {
  const efs = tmp('efs');
  const events: string[] = [];
  const registry = new InMemoryAgentRegistry();
  const compute = new InMemoryAgentCompute();
  const setRunning = compute.setRunning.bind(compute);
  compute.setRunning = async (agentId, running) => {
    events.push(running ? 'wake' : 'stop');
    if (!running) tasks.count = 2; // its task takes two polls to stop
    return setRunning(agentId, running);
  };
  const staging = new InMemoryWorkspaceStaging();
  const tasks = new FakeTasks();
  const runner = new InProcessRunner(efs, staging, tasks, events);
  const syncLog = new InMemoryWorkspaceSyncLog();
  const lines: string[] = [];
  let n = 0;
  const deps: AwsTransferDeps = {
    lifecycle: { registry, compute, depths: new InMemoryQueueDepths(), clock: { now: () => Date.now() }, log: memoryLogger() },
    tasks,
    runner,
    staging,
    syncLog,
    say: (l) => lines.push(l),
    sleep: async () => {},
    newTransferId: () => `transfer-${String(++n).padStart(4, '0')}`,
    limits: { stopMs: 60_000, taskMs: 60_000, pollMs: 1 },
  };
  if (state === 'awake') void registry.recordHeartbeat('fran', 1, 'v');
  return { efs, events, registry, compute, staging, runner, syncLog, lines, deps };
}

function localWorkspace(): string {
  const dir = tmp('local');
  mkdirSync(join(dir, 'memory'));
  writeFileSync(join(dir, 'SOUL.md'), 'I am Fran.\n');
  writeFileSync(join(dir, 'MEMORY.md'), '- the cat is Miso\n');
  writeFileSync(join(dir, 'memory', '2026-11-30.md'), 'notes\n');
  return dir;
}

describe('workspace push --aws', () => {
  it('stages, holds, waits for the runtime to stop, runs the task, verifies, releases and records', async () => {
    const t = setup('awake');
    const s = await pushToAws('fran', localWorkspace(), { force: false, hibernate: true }, t.deps);
    expect(readFileSync(join(t.efs, 'MEMORY.md'), 'utf8')).toBe('- the cat is Miso\n');
    expect(s).toMatchObject({ files: 3, created: 3, unchanged: 0, sent: 3, workspaceFiles: 3 });
    // Checked for conflicts while it still ran, held (stop) before the push's task, that task only once no runtime task
    // was alive, woken after (it was awake).
    expect(t.events).toEqual(['task check', 'stop', 'task push', 'wake']);
    expect(t.runner.runs[1]!.aliveAtStart).toBe(0);
    expect(t.lines.filter((l) => /waiting for \d runtime task/.test(l))).toHaveLength(2);
    expect((await t.registry.get('fran'))?.state).toBe('waking');
    expect(await t.syncLog.last('fran')).toMatchObject({ direction: 'push', files: 3, workspaceFiles: 3 });
    // The staged copy is gone once verified.
    expect(t.staging.objects.size).toBe(0);
    expect(t.staging.documents.size).toBe(0);
  });

  it('is refused while the agent runs unless --hibernate, touching nothing on EFS', async () => {
    const t = setup('awake');
    await expect(pushToAws('fran', localWorkspace(), { force: false, hibernate: false }, t.deps)).rejects.toMatchObject({ code: 'AGENT_AWAKE' });
    expect(t.events).toEqual([]);
    expect(t.staging.puts).toEqual([]); // refused before anything was staged
    expect(t.runner.runs).toEqual([]);
    expect(await t.syncLog.last('fran')).toBeUndefined();
  });

  it('refuses to overwrite what differs on EFS unless forced, and releases the agent either way', async () => {
    const t = setup();
    writeFileSync(join(t.efs, 'SOUL.md'), 'I was changed on AWS.\n');
    await expect(pushToAws('fran', localWorkspace(), { force: false, hibernate: false }, t.deps)).rejects.toMatchObject({
      code: 'WORKSPACE_CONFLICT',
      message: expect.stringMatching(/SOUL\.md: exists with other content/),
    });
    expect(readFileSync(join(t.efs, 'SOUL.md'), 'utf8')).toBe('I was changed on AWS.\n');
    expect((await t.registry.get('fran'))?.state).toBe('asleep');
    const s = await pushToAws('fran', localWorkspace(), { force: true, hibernate: false }, t.deps);
    expect(s).toMatchObject({ created: 2, replaced: 1 });
    // The second run found the bodies staged by the first: nothing was sent again.
    expect(s.sent).toBe(0);
  });

  it('resumes an interrupted upload without sending again what arrived', async () => {
    const t = setup();
    const dir = localWorkspace();
    t.staging.failAfter = 2;
    await expect(pushToAws('fran', dir, { force: false, hibernate: false }, t.deps)).rejects.toThrow(/connection reset/);
    expect(t.staging.puts).toHaveLength(2);
    expect(t.events).toEqual([]); // never held: the upload comes first
    t.staging.failAfter = undefined;
    const s = await pushToAws('fran', dir, { force: false, hibernate: false }, t.deps);
    expect(s.sent).toBe(1);
    expect(t.staging.puts).toHaveLength(3);
  });

  it('fails when a staged body is not what the manifest says, drops it, and succeeds once it is sent again', async () => {
    const t = setup();
    const dir = localWorkspace();
    // Corrupt every staged body as the task reads it: the first write fails, nothing is left half-written.
    const get = t.staging.get.bind(t.staging);
    t.staging.get = async function* (sha: string) {
      for await (const c of get(sha)) yield Buffer.from(Buffer.from(c).toString('utf8').toUpperCase());
    };
    await expect(pushToAws('fran', dir, { force: false, hibernate: false }, t.deps)).rejects.toMatchObject({ code: 'FILE_CORRUPT' });
    t.staging.get = get;
    expect((await t.registry.get('fran'))?.state).toBe('asleep');
    const s = await pushToAws('fran', dir, { force: false, hibernate: false }, t.deps);
    expect(s.sent).toBeGreaterThan(0);
    expect(readFileSync(join(t.efs, 'SOUL.md'), 'utf8')).toBe('I am Fran.\n');
  });
});

describe('workspace pull --aws', () => {
  it('brings the EFS workspace home, verified, and leaves a sleeping agent asleep', async () => {
    const t = setup();
    writeFileSync(join(t.efs, 'MEMORY.md'), 'the memory\n');
    mkdirSync(join(t.efs, 'sessions'));
    writeFileSync(join(t.efs, 'sessions', 'agent_fran_main.abc.jsonl'), '{"inboundId":"x"}\n');
    const home = join(tmp('home'), 'fran-backup');
    const s = await pullFromAws('fran', home, { force: false, hibernate: false }, t.deps);
    expect(readFileSync(join(home, 'sessions', 'agent_fran_main.abc.jsonl'), 'utf8')).toBe('{"inboundId":"x"}\n');
    expect(s).toMatchObject({ files: 2, created: 2 });
    expect(t.events).toEqual(['stop', 'task pull']);
    expect((await t.registry.get('fran'))?.state).toBe('asleep');
    expect(await t.syncLog.last('fran')).toMatchObject({ direction: 'pull', files: 2, where: home });
  });

  it('stops the task when the hold is lost, and says so', async () => {
    const t = setup();
    writeFileSync(join(t.efs, 'MEMORY.md'), 'm\n');
    // The task never ends; meanwhile the hold is taken away (its lease lapsed on the health tick).
    const stopped: string[] = [];
    t.runner.state = async () => {
      await t.registry.transition('fran', ['held'], 'asleep', Date.now());
      return { done: false, status: 'RUNNING' };
    };
    t.runner.stop = async (id: string) => void stopped.push(id);
    const { HOLD_RENEW_MS } = await import('../../shared/control/workspace-hold.ts');
    expect(HOLD_RENEW_MS).toBeGreaterThan(0);
    // Renewals run on a timer: make the renewal happen at once.
    const realSetInterval = globalThis.setInterval;
    globalThis.setInterval = ((fn: () => void) => realSetInterval(fn, 1)) as typeof setInterval;
    try {
      await expect(
        pullFromAws('fran', tmp('home'), { force: false, hibernate: false }, { ...t.deps, sleep: (ms) => new Promise((r) => setTimeout(r, ms + 5)) }),
      ).rejects.toMatchObject({ code: 'HOLD_LOST' });
    } finally {
      globalThis.setInterval = realSetInterval;
    }
    expect(stopped).toEqual(['task-1']);
    expect(t.lines.at(-1)).toMatch(/its hold had already ended/);
  });
});

describe('a task whose CLI is gone', () => {
  it('stops before the next file once the keepalive is older than KEEPALIVE_STALE_MS (by the store’s clock), and looks at most every 30 s', async () => {
    const staging = new InMemoryWorkspaceStaging();
    let now = 1_000_000;
    staging.now = () => now;
    const check = keepaliveCheck(staging, 'transfer-0001', 'fran', () => now);
    await expect(check()).rejects.toMatchObject({ code: 'HOLDER_GONE' }); // never written
    await staging.putDocument('transfer-0001', 'keepalive', {});
    await check();
    staging.writtenAt.clear(); // gone, but looked at less than 30 s ago: not looked at again yet
    now += 10_000;
    await check();
    await staging.putDocument('transfer-0001', 'keepalive', {});
    now += KEEPALIVE_STALE_MS + 1;
    await expect(check()).rejects.toMatchObject({ code: 'HOLDER_GONE', message: expect.stringMatching(/stopped renewing its keepalive \(240 s ago\)/) });
  });

  it('Ctrl-C while the task runs stops the task and releases the agent', async () => {
    const t = setup('awake');
    writeFileSync(join(t.efs, 'MEMORY.md'), 'm\n');
    const stopped: string[] = [];
    let interrupt!: (why: string) => void;
    const asked = new Promise<string>((r) => (interrupt = r));
    // Ctrl-C once the task runs: at the CLI's first look at its state.
    t.runner.state = async () => {
      interrupt('SIGINT');
      return { done: false, status: 'RUNNING' };
    };
    t.runner.stop = async (id: string) => void stopped.push(id);
    const run = pullFromAws(
      'fran',
      tmp('home'),
      { force: false, hibernate: true },
      { ...t.deps, interrupted: () => asked, sleep: (ms) => new Promise((r) => setTimeout(r, ms + 5)) },
    );
    await expect(run).rejects.toMatchObject({ code: 'INTERRUPTED', message: expect.stringMatching(/stopped \(SIGINT\); fran was released/) });
    expect(stopped).toEqual(['task-1']);
    // It was awake before: woken again.
    expect(t.events).toEqual(['stop', 'task pull', 'wake']);
  });
});
