// The tasks clawfleet runs itself carry the cost tags of their task definition and ECS's own,
// as the agents' services' tasks do: asked for in the RunTask request.
import { DescribeServicesCommand, RunTaskCommand, type ECSClient } from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import { EcsWorkspaceTasks } from '../../shared/adapters/aws/ecs-workspace-tasks.ts';

describe('RunTask of a workspace task', () => {
  it('asks ECS for its managed tags and the task definition’s tags on the task', async () => {
    const sent: unknown[] = [];
    const ecs = {
      send: async (command: unknown) => {
        sent.push(command);
        if (command instanceof DescribeServicesCommand)
          return { services: [{ status: 'ACTIVE', networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-1'], securityGroups: ['sg-1'] } } }] };
        if (command instanceof RunTaskCommand) return { tasks: [{ taskArn: 'arn:aws:ecs:us-east-1:111122223333:task/clawfleet-demo/1' }] };
        throw new Error(`unexpected ${String(command)}`);
      },
    } as unknown as ECSClient;
    await new EcsWorkspaceTasks(ecs, 'demo').start('fran', { action: 'push', transfer: 't1', force: false });
    const run = sent.find((c): c is RunTaskCommand => c instanceof RunTaskCommand)!;
    expect(run.input).toMatchObject({ taskDefinition: 'demo-agent-fran-workspace', enableECSManagedTags: true, propagateTags: 'TASK_DEFINITION' });
  });
});
