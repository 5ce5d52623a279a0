// The runtime image run as the deployed task definition says (test/support/task-runner.ts):
// the image fleet deployed to the emulator with cdklocal, fran's task definition read back
// from the emulator and translated into the container's options (user, capabilities, health
// check, stop timeout, limits, the workspace through its access point), the task-credentials
// endpoint where ECS puts it. Then, as ECS would see it: a Telegram update through the
// deployed Function URL answered once from the container; `docker kill` mid-turn and a new
// task answering once; a stalled event loop turning the container unhealthy within its health
// check's window; SIGTERM draining the turn within stopTimeout.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsTestEnv } from '../support/aws.ts';
import { writeFigures } from '../support/figures.ts';
import { type DeployedFleet } from '../support/image-deploy.ts';
import { deployFranOnImage, postFranUpdate } from '../support/fran-image-fleet.ts';
import { type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import type { TaskDefinition } from '../support/ecs-task-definition.ts';
import { inspectContainer } from '../support/engine-api.ts';
import { agentTasks, type AgentTasks } from '../support/image-task.ts';
import type { TaskRun } from '../support/task-runner.ts';

const SKIP = inject('imageSkip');
const aws = awsTestEnv();
const BOT_TOKEN = '1000028:AAfran-image-task-token-000000000000';
const MODEL_KEY = 'sk-test-fran-image-task-0123456789';
const CHAT = 5001;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: DeployedFleet;
let fran: AgentTasks;
let taskDefinition: TaskDefinition;
let task: TaskRun | undefined;
let tasks = 0;
let updateId = 2800;
const figures: Record<string, unknown> = {};

/** The first turn of a text starting with "slow" waits for releaseHeld() before the model answers; a redone turn does not. */
const held: (() => void)[] = [];
const heldOnce = new Set<string>();
const releaseHeld = () => held.splice(0).forEach((r) => r());
async function responder(req: ModelRequest) {
  if (req.lastUserText.startsWith('slow') && !heldOnce.has(req.lastUserText)) {
    heldOnce.add(req.lastUserText);
    await new Promise<void>((r) => held.push(r));
  }
  return { text: `echo: ${req.lastUserText}` };
}

/** A new task of fran's, once its runtime is ready. */
async function startTask(): Promise<TaskRun> {
  const run = await fran.start();
  figures[`task${++tasks}StartToReadyMs`] = run.startMs;
  return run;
}

function sendUpdate(text: string): Promise<Response> {
  return postFranUpdate(fleet, BOT_TOKEN, textUpdate({ updateId: ++updateId, chatId: CHAT, fromId: CHAT, text }));
}

const replies = (text: string) => tg.calls('sendMessage').filter((c) => c.params.text === `echo: ${text}`).length;

/** Waits until fran's queues hold nothing that could still become a reply, then counts. */
async function settledReplies(text: string): Promise<number> {
  await expect.poll(() => fleet.pending('fran'), { timeout: 120_000, interval: 1_000 }).toBe(0);
  return replies(text);
}

describe.skipIf(SKIP)(
  SKIP ? `the runtime image as the task definition runs it — SKIPPED: ${SKIP}` : 'the runtime image as the deployed task definition runs it',
  () => {
    beforeAll(async () => {
      ({ tg, model, fleet } = await deployFranOnImage(aws, {
        image: inject('images').runtime.tag,
        botToken: BOT_TOKEN,
        modelKey: MODEL_KEY,
        chat: CHAT,
        responder,
      }));
      figures.deploySeconds = Number(fleet.seconds.deploy.toFixed(1));
      fran = await agentTasks(aws, fleet, 'fran', inject('images').runtime.tag, [Number(new URL(model.url).port)]);
      taskDefinition = fran.taskDefinition;
      task = await startTask();
    }, 600_000);

    afterAll(async () => {
      releaseHeld();
      await task?.remove();
      await tg?.close();
      await model?.close();
      fran?.remove();
      fleet?.remove();
      writeFigures('image-runtime-task', figures);
    });

    it('runs as the task definition says: root with the dropped capabilities gone, its limits, its stop timeout and health check', async () => {
      const { HostConfig } = await inspectContainer(task!.id);
      const container = taskDefinition.containerDefinitions[0]!;
      expect(HostConfig.CapDrop).toEqual(container.linuxParameters?.capabilities?.drop);
      expect(HostConfig.Memory).toBe(taskDefinition.memory * 1024 * 1024);
      const pid = await task!.runtimePid();
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+0\s/m.test(status)).toBe(true);
      // NET_RAW (13) and MKNOD (27) are among those dropped: neither is in the runtime's bounding set.
      const bounding = BigInt(`0x${/^CapBnd:\s+(\w+)/m.exec(status)![1]}`);
      expect(bounding & (1n << 13n)).toBe(0n);
      expect(bounding & (1n << 27n)).toBe(0n);
      // The SDK took the task role's credentials from ECS's endpoint, at the URI it was given.
      expect(task!.credentialRequests.some((r) => r.path === task!.credentialsUri)).toBe(true);
    });

    it('answers a Telegram update POSTed to the deployed webhook URL, from the container, exactly once', async () => {
      const started = performance.now();
      const res = await sendUpdate('hello from the image');
      expect(res.status).toBe(200);
      await expect.poll(() => replies('hello from the image'), { timeout: 90_000, interval: 250 }).toBe(1);
      figures.updateToReplyMs = Math.round(performance.now() - started);
      expect(tg.calls('sendMessage').find((c) => c.params.text === 'echo: hello from the image')).toMatchObject({
        token: BOT_TOKEN,
        params: { chat_id: CHAT },
      });
      expect(model.requests().at(-1)?.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
      expect(await settledReplies('hello from the image')).toBe(1);
    });

    it('drains the turn in flight on SIGTERM and exits 0 within the task definition’s stopTimeout, the reply sent once', async () => {
      const stopTimeout = taskDefinition.containerDefinitions[0]!.stopTimeout!;
      await sendUpdate('slow drain');
      await expect.poll(() => held.length, { timeout: 60_000, interval: 100 }).toBe(1);
      const asked = performance.now();
      const stopped = task!.stop();
      // The model answers a few seconds into the drain.
      await new Promise((r) => setTimeout(r, 3_000));
      releaseHeld();
      const code = await stopped;
      const seconds = (performance.now() - asked) / 1000;
      figures.drainSeconds = Number(seconds.toFixed(1));
      expect(code).toBe(0);
      expect(seconds).toBeLessThan(stopTimeout);
      expect(await settledReplies('slow drain')).toBe(1);
      await task!.remove();
      task = undefined;
    });

    it('answers once when the container is killed mid-turn and ECS starts another task', async () => {
      await task?.remove();
      task = await startTask();
      await sendUpdate('slow kill');
      await expect.poll(() => held.length, { timeout: 60_000, interval: 100 }).toBe(1);
      await task.signal('SIGKILL');
      expect(await task.exited()).toBe(137);
      releaseHeld(); // the dead task's model call gets its answer nowhere
      await task.remove();
      // The message comes back after its visibility timeout, to the new task.
      task = await startTask();
      await expect.poll(() => replies('slow kill'), { timeout: 180_000, interval: 500 }).toBe(1);
      expect(await settledReplies('slow kill')).toBe(1);
    });

    it('turns unhealthy within its health check’s window once its event loop stalls', async () => {
      const hc = taskDefinition.containerDefinitions[0]!.healthCheck!;
      await expect
        .poll(async () => (await task!.state()).Health?.Status, { timeout: (hc.startPeriod! + 2 * hc.interval!) * 1000, interval: 1_000 })
        .toBe('healthy');
      const pid = await task!.runtimePid();
      const stalled = performance.now();
      process.kill(pid, 'SIGSTOP'); // the event loop stops: the health file is no longer refreshed
      try {
        // The file goes stale after 60 s; then `retries` failed checks, one per interval.
        const window = (60 + (hc.retries! + 1) * hc.interval! + hc.timeout!) * 1000;
        await expect.poll(async () => (await task!.state()).Health?.Status, { timeout: window + 60_000, interval: 2_000 }).toBe('unhealthy');
        figures.stallToUnhealthySeconds = Number(((performance.now() - stalled) / 1000).toFixed(1));
        expect(performance.now() - stalled).toBeLessThanOrEqual(window);
        const log = (await task!.state()).Health!.Log;
        expect(log.at(-1)!.ExitCode).toBe(1);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    });
  },
);
