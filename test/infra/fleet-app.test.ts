// What the synthesized fleet must contain, item by item (docs/deploy.md, DESIGN.md "Stacks").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { RuntimeConfigSchema, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { ConfigError } from '../../shared/errors.ts';
import { EXAMPLE_CONFIG, synthFleet, type SynthedFleet } from './synth-fleet.ts';

let fleet: SynthedFleet;
beforeAll(() => {
  fleet = synthFleet({
    ...EXAMPLE_CONFIG,
    agents: { ...EXAMPLE_CONFIG.agents, list: EXAMPLE_CONFIG.agents.list.map((a) => (a.id === 'ray' ? { ...a, runtime: { spot: true } } : a)) },
  });
});

describe('the stacks', () => {
  it('are one control-plane stack and one stack per agent, each deployable by name', () => {
    expect([...fleet.templates.keys()].sort()).toEqual(['demo-agent-fran', 'demo-agent-grif', 'demo-agent-jerry', 'demo-agent-ray', 'demo-control-plane']);
    for (const s of fleet.assembly.stacks.filter((s) => s.stackName !== 'demo-control-plane')) {
      expect(s.dependencies.map((d) => d.id)).toContain('demo-control-plane');
    }
  });

  it('pass cdk-nag AwsSolutions with every acknowledgement carrying a reason', () => {
    const report = JSON.parse(readFileSync(join(fleet.assembly.directory, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    for (const s of nag.suppressedViolations ?? []) expect(s.reason.length).toBeGreaterThan(40);
  });
});

describe('the control-plane stack', () => {
  const cp = () => fleet.template('demo-control-plane');

  it('has the session, dedupe, delivery and registry tables keyed by pk with the expiresAt TTL, billed per request', () => {
    for (const name of ['demo-sessions', 'demo-dedupe', 'demo-deliveries', 'demo-registry']) {
      cp().hasResourceProperties('AWS::DynamoDB::Table', {
        TableName: name,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        BillingMode: 'PAY_PER_REQUEST',
      });
    }
  });

  it('runs every handler on Node 24, arm64, with its own role and log group', () => {
    for (const name of ['telegram-webhook', 'outbox', 'health']) {
      cp().hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `demo-${name}`,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
      cp().hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `/aws/lambda/demo-${name}`, RetentionInDays: 30 });
    }
    const functions = Object.values(cp().findResources('AWS::Lambda::Function', { Properties: { FunctionName: Match.stringLikeRegexp('^demo-') } }));
    const roleIds = functions.map((f) => f.Properties.Role['Fn::GetAtt'][0] as string);
    expect(new Set(roleIds).size).toBe(functions.length);
    // No managed policies: each role's grants are its own inline statements.
    for (const id of roleIds) expect(cp().toJSON().Resources[id].Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('serves the Telegram webhook on a Function URL, and outputs it', () => {
    cp().hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    expect(cp().toJSON().Outputs.TelegramWebhookUrl).toBeDefined();
  });

  it('creates the Telegram secret without a value', () => {
    cp().hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'clawfleet/demo/control/telegram', SecretString: Match.absent(), GenerateSecretString: Match.absent() });
  });

  it('has a public-subnet VPC with no NAT gateway, an ECS cluster with Fargate and Fargate Spot, and flow logs', () => {
    cp().resourceCountIs('AWS::EC2::NatGateway', 0);
    cp().resourceCountIs('AWS::EC2::EIP', 0);
    for (const subnet of Object.values(cp().findResources('AWS::EC2::Subnet'))) expect(subnet.Properties.MapPublicIpOnLaunch).toBe(true);
    cp().hasResourceProperties('AWS::ECS::Cluster', { ClusterName: 'clawfleet-demo', CapacityProviders: ['FARGATE', 'FARGATE_SPOT'] });
    cp().resourceCountIs('AWS::EC2::FlowLog', 1);
  });

  it('keeps workspaces on an encrypted EFS file system that refuses unencrypted clients and survives a teardown', () => {
    cp().hasResource('AWS::EFS::FileSystem', {
      Properties: { Encrypted: true, FileSystemPolicy: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) } },
      DeletionPolicy: 'Retain',
    });
  });

  it('has a schedule group, the health tick every minute, and alarms on function errors and webhook 5xx', () => {
    cp().hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'clawfleet-demo' });
    cp().hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'demo-health',
      GroupName: { Ref: Match.stringLikeRegexp('^Schedules') },
      ScheduleExpression: 'rate(1 minute)',
      Target: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FunctionsHealthFunction'), 'Arn'] }, RoleArn: Match.anyValue() },
    });
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-telegram-webhook-errors', MetricName: 'Errors' });
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-telegram-webhook-5xx', MetricName: 'Url5xxCount' });
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-outbox-errors' });
  });
});

describe('an agent stack', () => {
  const jerry = () => fleet.template('demo-agent-jerry');
  const fran = () => fleet.template('demo-agent-fran');

  it('has FIFO inbound and outbox queues named deterministically, each with a FIFO DLQ after maxReceiveCount', () => {
    const t = fran();
    for (const [queue, dlq] of [
      ['demo-agent-fran.fifo', 'demo-agent-fran-dlq.fifo'],
      ['demo-outbox-fran.fifo', 'demo-outbox-fran-dlq.fifo'],
    ]) {
      t.hasResourceProperties('AWS::SQS::Queue', { QueueName: dlq, FifoQueue: true, SqsManagedSseEnabled: true });
      const [dlqId] = Object.keys(t.findResources('AWS::SQS::Queue', { Properties: { QueueName: dlq } }));
      t.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: queue,
        FifoQueue: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      });
    }
  });

  it('feeds its outbox to the control plane’s outbox function with partial batch failures', () => {
    fran().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: 'demo-outbox',
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('QueuesOutbox[0-9A-F]+$'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('creates the agent’s secret without a value', () => {
    fran().hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'clawfleet/demo/agents/fran', SecretString: Match.absent(), GenerateSecretString: Match.absent() });
  });

  it('sizes the task from the runtime profile and hands the runtime only its own config slice and queues', () => {
    jerry().hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '2048', Memory: '4096', RequiresCompatibilities: ['FARGATE'] });
    fran().hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '256', Memory: '512' });
    const task = Object.values(fran().findResources('AWS::ECS::TaskDefinition'))[0]!;
    const env = Object.fromEntries(task.Properties.ContainerDefinitions[0].Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
    const config = parseConfig(EXAMPLE_CONFIG);
    expect(RuntimeConfigSchema.parse(JSON.parse(env.CLAWFLEET_RUNTIME_CONFIG))).toEqual(runtimeConfigFor(config, 'fran'));
    expect(env).toMatchObject({ CLAWFLEET_AGENT_ID: 'fran', CLAWFLEET_SECRET_ID: 'clawfleet/demo/agents/fran', CLAWFLEET_WORKSPACE: '/workspace' });
    expect(env.CLAWFLEET_INBOX_URL.Ref).toMatch(/^QueuesInbox[0-9A-F]+$/);
    expect(env.CLAWFLEET_DLQ_URL.Ref).toMatch(/^QueuesInboxDlq[0-9A-F]+$/);
    expect(JSON.stringify(env)).not.toMatch(/jerry|grif|ray/);
  });

  it('mounts its own EFS access point with IAM authorization and encryption in transit', () => {
    fran().hasResourceProperties('AWS::EFS::AccessPoint', { RootDirectory: { Path: '/agents/fran' }, PosixUser: { Uid: '1000', Gid: '1000' } });
    fran().hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [{ Name: 'workspace', EFSVolumeConfiguration: { TransitEncryption: 'ENABLED', AuthorizationConfig: { IAM: 'ENABLED', AccessPointId: Match.anyValue() } } }],
      ContainerDefinitions: [Match.objectLike({ MountPoints: [{ ContainerPath: '/workspace', SourceVolume: 'workspace', ReadOnly: false }] })],
    });
  });

  it('runs an always-on agent at 1 and a hibernating one at 0, with the circuit breaker, on Fargate or Fargate Spot', () => {
    const service = { DeploymentConfiguration: { DeploymentCircuitBreaker: { Enable: true, Rollback: true }, MinimumHealthyPercent: 0, MaximumPercent: 100 } };
    jerry().hasResourceProperties('AWS::ECS::Service', { ...service, ServiceName: 'agent-jerry', DesiredCount: 1, CapacityProviderStrategy: [{ CapacityProvider: 'FARGATE', Weight: 1 }] });
    fran().hasResourceProperties('AWS::ECS::Service', { ...service, DesiredCount: 0 });
    fleet.template('demo-agent-ray').hasResourceProperties('AWS::ECS::Service', { CapacityProviderStrategy: [{ CapacityProvider: 'FARGATE_SPOT', Weight: 1 }] });
  });

  it('logs to its own log group with retention, and alarms on DLQ depth and restarts', () => {
    fran().hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/clawfleet/demo/agents/fran', RetentionInDays: 30 });
    fran().hasResourceProperties('AWS::Logs::MetricFilter', { FilterPattern: '{ $.msg = "ready" }', MetricTransformations: [Match.objectLike({ MetricName: 'RuntimeStarts', MetricNamespace: 'Clawfleet/demo' })] });
    for (const name of ['demo-agent-fran-inbox-dlq', 'demo-agent-fran-outbox-dlq', 'demo-agent-fran-restarts']) fran().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: name });
  });
});

describe('context and config checks', () => {
  it('takes maxReceiveCount and log retention from context', () => {
    const f = synthFleet(EXAMPLE_CONFIG, { maxReceiveCount: '3', logRetentionDays: '7' }, { nag: false });
    f.template('demo-agent-fran').hasResourceProperties('AWS::SQS::Queue', { QueueName: 'demo-agent-fran.fifo', RedrivePolicy: { maxReceiveCount: 3 } });
    f.template('demo-agent-fran').hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('swaps only what the emulator lacks: no flow logs, no default-security-group custom resource, a registry image', () => {
    const f = synthFleet(EXAMPLE_CONFIG, { emulator: 'true', runtimeImage: 'public.ecr.aws/docker/library/node:24-slim' });
    const cp = f.template('demo-control-plane');
    cp.resourceCountIs('AWS::EC2::FlowLog', 0);
    expect(Object.keys(cp.findResources('Custom::VpcRestrictDefaultSG'))).toEqual([]);
    f.template('demo-agent-fran').hasResourceProperties('AWS::ECS::TaskDefinition', { ContainerDefinitions: [Match.objectLike({ Image: 'public.ecr.aws/docker/library/node:24-slim' })] });
  });

  it('refuses an emulator deploy without a registry image, and a bad context value, naming each', () => {
    expect(() => synthFleet(EXAMPLE_CONFIG, { emulator: 'true', runtimeImage: undefined })).toThrow(/context.runtimeImage: is required with emulator=true/);
    expect(() => synthFleet(EXAMPLE_CONFIG, { logRetentionDays: '8' })).toThrow(/context.logRetentionDays: must be one of/);
  });

  it('refuses what it cannot deploy yet, with every problem at once', () => {
    const config = {
      ...EXAMPLE_CONFIG,
      agents: { ...EXAMPLE_CONFIG.agents, list: [...EXAMPLE_CONFIG.agents.list, { id: 'fran-dlq', heartbeat: { every: '30m' } }] },
      cron: { jobs: [{ id: 'daily', agentId: 'fran', schedule: { kind: 'every' as const, every: '1d' }, payload: { kind: 'systemEvent' as const, text: 'hi' } }] },
    };
    let error: unknown;
    try {
      synthFleet(config);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['agents.list[4].id', 'agents.list[4].heartbeat', 'cron.jobs']);
  });
});
