// The isolation cases `npm run smoke:aws` checks on a real account (IAM SimulatePrincipalPolicy),
// evaluated here against the synthesized smoke fleet with the offline simulator: every
// expectation must hold for the templates that will be deployed, so a smoke-test failure on
// AWS means AWS disagrees with the design, not that the smoke test guessed wrong.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { isolationCases, type SmokePrincipal, type SmokeResources } from '../../scripts/smoke/isolation-cases.ts';
import { DEFAULT_SMOKE_MODEL, SMOKE_AGENT, smokeConfig } from '../../scripts/smoke/smoke-plan.ts';
import { ACCOUNT, REGION, TemplateResolver } from './resolve-template.ts';
import { synthFleet, type SynthedFleet } from './synth-fleet.ts';

const FLEET = 'smoke-offline0';
let fleet: SynthedFleet;
let resolver: TemplateResolver;
let resources: SmokeResources;
let fileSystemPolicy: unknown;

const logicalId = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const resolveIn = (c: IConstruct, v: unknown) => resolver.resolve(Stack.of(c).stackName, Stack.of(c).resolve(v));

beforeAll(() => {
  fleet = synthFleet(smokeConfig(FLEET, DEFAULT_SMOKE_MODEL));
  resolver = new TemplateResolver(fleet.templates);
  const cp = fleet.stacks.controlPlane;
  const agent = fleet.stacks.agents.get(SMOKE_AGENT)!;
  resources = {
    region: REGION,
    account: ACCOUNT,
    fleet: FLEET,
    agentId: SMOKE_AGENT,
    agentSecretArn: resolveIn(agent, agent.secret.secretArn),
    telegramSecretArn: resolveIn(cp, cp.telegramSecrets[0]!.secretArn),
    dashboardSecretArn: resolveIn(cp, cp.dashboardSecret.secretArn),
    fileSystemArn: resolveIn(cp, cp.network.fileSystem.fileSystemArn),
    workspaceAccessPointArn: resolveIn(agent, agent.runtime.accessPoint.accessPointArn),
    archiveAccessPointArn: resolveIn(agent, agent.archive.accessPoint.accessPointArn),
    archiveRoleArn: resolveIn(agent, agent.archive.taskRole.roleArn),
    modelArn: `arn:aws:bedrock:${REGION}::foundation-model/${DEFAULT_SMOKE_MODEL.slice('bedrock/'.length)}`,
    mediaBucketArn: resolveIn(cp, cp.media.bucket.bucketArn),
  };
  fileSystemPolicy = resolver.resolve(cp.stackName, resolver.resource(cp.stackName, logicalId(cp.network.fileSystem)).Properties.FileSystemPolicy);
});

function policiesOf(principal: SmokePrincipal): { name: string; policy: unknown }[] {
  const agent = fleet.stacks.agents.get(SMOKE_AGENT)!;
  const role =
    principal === 'task'
      ? agent.runtime.taskRole
      : principal === 'archive'
        ? agent.archive.taskRole
        : fleet.stacks.controlPlane.functions.functions.get(principal.slice(3))!.role!;
  return resolver.rolePolicies(Stack.of(role).stackName, logicalId(role));
}

describe('the smoke test’s isolation cases', () => {
  it('hold for the synthesized smoke fleet, every one', async () => {
    const cases = isolationCases(resources);
    const wrong: string[] = [];
    for (const c of cases) {
      const result = await runSimulation(
        {
          request: {
            principal: `arn:aws:iam::${ACCOUNT}:role/${c.principal}`,
            action: c.action,
            resource: { resource: c.resource, accountId: ACCOUNT },
            contextVariables: { 'aws:SecureTransport': 'true', ...c.context },
          },
          identityPolicies: policiesOf(c.principal),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
          ...(c.action.startsWith('elasticfilesystem:') ? { resourcePolicy: fileSystemPolicy } : {}),
        },
        {},
      );
      if (result.resultType === 'error') throw new Error(`simulation of ${c.action} failed: ${JSON.stringify(result.errors)}`);
      const got = result.overallResult === 'Allowed' ? 'Allowed' : 'Denied';
      if (got !== c.expected) wrong.push(`${c.principal} ${c.action} on ${c.resource} (${c.why}): expected ${c.expected}, got ${got}`);
    }
    expect(wrong).toEqual([]);
    // Both ways, for each principal: something allowed (the simulator sees its policies) and something denied.
    for (const p of ['task', 'archive', 'fn:compute', 'fn:telegram-webhook', 'fn:outbox', 'fn:dashboard'] as const) {
      expect(new Set(cases.filter((c) => c.principal === p).map((c) => c.expected)), p).toEqual(new Set(['Allowed', 'Denied']));
    }
    expect(cases.length).toBeGreaterThan(50);
  });
});
