// ECS on the emulator with real containers (issue #28 item 6): the image fleet's fran deployed
// with cdklocal to a MiniStack that runs ECS tasks as containers on the image tests' engine
// (test/support/ecs-emulator.ts), its task definition the deployed one in host network mode
// (the emulator's awsvpc hands a credentials URI the SDK refuses: see that file). Nothing here
// starts a container itself: a Telegram update through the deployed webhook wakes fran through
// λ compute (desired count 0 → 1), MiniStack's ECS starts the built image, and the runtime in it
// takes the task credentials from the emulator's endpoint and answers once; the health tick
// (λ health, invoked as its schedule does) hibernates it once idle (desired count 0, the
// container gone), and wakes it again for a message left waiting in its inbox. Wake to first
// reply is measured into test-artifacts/figures/image-ecs-emulator.json.
import { DescribeServicesCommand, ECSClient, ListTasksCommand } from '@aws-sdk/client-ecs';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { agentServiceName, agentStackName, clusterName, functionName } from '../../shared/config/names.ts';
import { docker, dockerStream } from '../support/docker-cli.ts';
import { startEcsEmulator, useHostNetwork, type EcsEmulator } from '../support/ecs-emulator.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { writeFigures } from '../support/figures.ts';
import { deployImageFleet, type DeployedFleet } from '../support/image-deploy.ts';
import { imageFleetConfig } from '../support/image-fleet.ts';
import { postFranUpdate } from '../support/fran-image-fleet.ts';
import { sendToMainSession } from '../support/queue-turn.ts';

const SKIP = inject('imageSkip');
const BOT_TOKEN = '1000030:AAfran-image-ecs-token-00000000000000';
const MODEL_KEY = 'sk-test-fran-image-ecs-0123456789';
const CHAT = 5003;
const FLEET = 'imgecs';

let emulator: EcsEmulator;
let tg: FakeTelegram;
let model: FakeModel;
let fleet: DeployedFleet;
let ecs: ECSClient;
let lambda: LambdaClient;
let updateId = 3000;
const figures: Record<string, unknown> = {};

function responder(req: ModelRequest) {
  return { text: `echo: ${req.lastUserText}` };
}

const cluster = clusterName(FLEET);
const service = agentServiceName('fran');

async function desiredCount(): Promise<number | undefined> {
  const { services = [] } = await ecs.send(new DescribeServicesCommand({ cluster, services: [service] }));
  return services[0]?.desiredCount;
}

/** The running containers MiniStack's ECS started for fran's task definition family. */
async function franContainers(): Promise<string[]> {
  const out = await docker(['ps', '-q', '--filter', `label=com.amazonaws.ecs.task-definition-family=${agentStackName(FLEET, 'fran')}`]);
  return out.split('\n').filter(Boolean);
}

/** λ health, invoked as its schedule invokes it; what it did for each agent. */
async function healthTick(): Promise<Record<string, string>> {
  const res = await lambda.send(new InvokeCommand({ FunctionName: functionName(FLEET, 'health'), Payload: Buffer.from('{}') }));
  const body = Buffer.from(res.Payload ?? []).toString('utf8');
  if (res.FunctionError) throw new Error(`λ health failed: ${body}`);
  return JSON.parse(body) as Record<string, string>;
}

describe.skipIf(SKIP)(
  SKIP ? `ECS on the emulator with real containers — SKIPPED: ${SKIP}` : 'ECS on the emulator, with the image run as containers by its ECS',
  () => {
    beforeAll(async () => {
      emulator = await startEcsEmulator(process.env.DOCKER_HOST!);
      tg = await startTelegram({ bots: [{ token: BOT_TOKEN }] });
      model = await startModel({ apiKey: MODEL_KEY, responder });
      const config = imageFleetConfig({
        fleet: FLEET,
        stages: ['runtime'],
        modelBaseUrl: model.baseUrls['openai-completions'],
        telegramApiRoot: tg.url,
        allowFrom: [String(CHAT)],
      });
      // Idle after a minute, so the health tick's hibernation comes within the test.
      config.agents.list = config.agents.list.map((a) => (a.id === 'fran' ? { ...a, runtime: { ...a.runtime, idleTimeoutMinutes: 1 } } : a));
      fleet = await deployImageFleet(
        emulator.aws,
        config,
        inject('images').runtime.tag,
        {
          telegram: { FRAN_BOT_TOKEN: BOT_TOKEN },
          'agent:fran': { OPENAI_API_KEY: MODEL_KEY },
        },
        { newAgents: true },
      );
      figures.deploySeconds = Number(fleet.seconds.deploy.toFixed(1));
      ecs = new ECSClient(emulator.aws);
      lambda = new LambdaClient(emulator.aws);
      figures.hostNetworkRevision = await useHostNetwork(emulator.aws, fleet, 'fran');
      expect(await desiredCount()).toBe(0);
      expect(await franContainers()).toEqual([]);
    }, 900_000);

    afterAll(async () => {
      // Whatever ECS left, running or stopped: MiniStack's containers for fran's family.
      const left = await docker(['ps', '-aq', '--filter', `label=com.amazonaws.ecs.task-definition-family=${agentStackName(FLEET, 'fran')}`]).catch(() => '');
      for (const id of left.split('\n').filter(Boolean)) await docker(['rm', '-f', id]).catch(() => undefined);
      ecs?.destroy();
      lambda?.destroy();
      fleet?.remove();
      await emulator?.stop();
      await tg?.close();
      await model?.close();
      writeFigures('image-ecs-emulator', figures);
    });

    it('wakes fran through λ compute on a Telegram update: ECS runs the image, which takes the task credentials and answers once', async () => {
      const text = 'hello from ECS';
      const woke = performance.now();
      const res = await postFranUpdate(fleet, BOT_TOKEN, textUpdate({ updateId: ++updateId, chatId: CHAT, fromId: CHAT, text }));
      expect(res.status).toBe(200);
      await expect.poll(desiredCount, { timeout: 60_000, interval: 500 }).toBe(1);
      await expect.poll(franContainers, { timeout: 180_000, interval: 500 }).toHaveLength(1);
      figures.wakeToContainerMs = Math.round(performance.now() - woke);
      await expect.poll(() => tg.calls('sendMessage').filter((c) => c.params.text === `echo: ${text}`).length, { timeout: 300_000, interval: 250 }).toBe(1);
      figures.wakeToFirstReplyMs = Math.round(performance.now() - woke);

      const [container] = await franContainers();
      const logs = await docker(['logs', container!]);
      // The emulator's task credentials, from its endpoint on loopback, taken out of the environment.
      expect(logs).toContain('"msg":"task credentials taken out of the environment"');
      expect(logs).toContain('"endpoint":"full"');
      const { taskArns = [] } = await ecs.send(new ListTasksCommand({ cluster, serviceName: service, desiredStatus: 'RUNNING' }));
      expect(taskArns).toHaveLength(1);
      // Answered once, counted again once fran's queues hold nothing that could still become a reply.
      await expect.poll(() => fleet.pending('fran'), { timeout: 120_000, interval: 1_000 }).toBe(0);
      expect(tg.calls('sendMessage').filter((c) => c.params.text === `echo: ${text}`)).toHaveLength(1);
    }, 600_000);

    it('hibernates fran on the health tick once idle: desired count 0, the runtime told to stop (SIGTERM through tini), the container gone', async () => {
      const [container] = await franContainers();
      expect(container).toBeDefined();
      // Its log until it ends: MiniStack removes the container once it has stopped it.
      const log: string[] = [];
      const following = dockerStream(['logs', '-f', container!], (line) => log.push(line));
      let acted: Record<string, string> = {};
      // Idle for its minute (and the tick's own schedule may act first: then the registry says so).
      await expect
        .poll(
          async () => {
            acted = await healthTick();
            return (await desiredCount()) === 0;
          },
          { timeout: 240_000, interval: 10_000 },
        )
        .toBe(true);
      figures.hibernatedBy = acted.fran;
      await expect.poll(franContainers, { timeout: 120_000, interval: 1_000 }).toEqual([]);
      await following;
      const lines = log.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
      // ECS's stop reached the runtime: SIGTERM, forwarded by tini (PID 1), and it began to drain.
      expect(lines, log.join('\n').slice(-3000)).toContainEqual(expect.objectContaining({ msg: 'stopping', signal: 'SIGTERM' }));
      // Whether the drain ended before MiniStack's own 5 s stop timeout (it ignores the task
      // definition's stopTimeout, 30 s): the drain within stopTimeout is runtime-task.test.ts's.
      figures.hibernateDrainedInTime = lines.some((l) => l.msg === 'exiting' && l.code === 0);
    }, 600_000);

    it('wakes fran again on the health tick for a message left waiting in its inbox, and the runtime takes it', async () => {
      expect(await desiredCount()).toBe(0);
      const sqs = new SQSClient(emulator.aws);
      try {
        const id = `ecs-tick-${Date.now()}`;
        await sendToMainSession(sqs, fleet.output(agentStackName(FLEET, 'fran'), 'InboxUrl'), 'fran', id, 'left waiting');
        const left = performance.now();
        // Only a health tick wakes it here (no webhook is involved): this one, or the schedule's if it came first.
        figures.tickWake = (await healthTick()).fran;
        await expect.poll(desiredCount, { timeout: 90_000, interval: 1_000 }).toBe(1);
        await expect.poll(franContainers, { timeout: 180_000, interval: 500 }).toHaveLength(1);
        const [container] = await franContainers();
        await expect.poll(async () => (await docker(['logs', container!])).includes(id), { timeout: 300_000, interval: 1_000 }).toBe(true);
        figures.tickWakeToTurnMs = Math.round(performance.now() - left);
        await expect.poll(() => fleet.pending('fran'), { timeout: 120_000, interval: 1_000 }).toBe(0);
      } finally {
        sqs.destroy();
      }
    }, 600_000);
  },
);
