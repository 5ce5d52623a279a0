// What the synthesized fleet must contain, item by item (docs/deploy.md, DESIGN.md "Stacks").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource, Stack, TagManager, Validations, type App, type CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { OUTBOX_TIMEOUT_SECONDS } from '../../infra/constructs/control-functions.ts';
import { NO_ROTATION } from '../../infra/constructs/empty-secret.ts';
import { retainedResources } from '../../infra/retained-resources.ts';
import { ARCHIVE_SCRIPT } from '../../infra/workspace-archive-script.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { RuntimeConfigSchema, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { configSchedules } from '../../shared/cron/config-schedules.ts';
import { scheduleInput } from '../../shared/cron/trigger.ts';
import { ConfigError } from '../../shared/errors.ts';
import { RUNTIME_ENV_NAMES } from '../../shared/runtime-env.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { EXAMPLE_CONFIG, synthFleet, type SynthedFleet } from './synth-fleet.ts';

/** The example, with ray on Spot, grif on x86, fran beating every 30 minutes with a daily budget and a weekday job, and hooks. */
const CONFIG: FleetConfigInput = {
  ...EXAMPLE_CONFIG,
  agents: {
    ...EXAMPLE_CONFIG.agents,
    list: EXAMPLE_CONFIG.agents.list.map((a) =>
      a.id === 'ray'
        ? { ...a, runtime: { spot: true } }
        : a.id === 'fran'
          ? { ...a, heartbeat: { every: '30m' }, budget: { dailyUsd: 3 } }
          : a.id === 'grif'
            ? { ...a, runtime: { architecture: 'x86_64' as const } }
            : a,
    ),
  },
  cron: {
    jobs: [
      {
        id: 'standup',
        agentId: 'fran',
        schedule: { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Berlin' },
        payload: { kind: 'agentTurn', message: 'plan the day' },
      },
    ],
  },
  hooks: { tokenSecret: 'HOOKS_TOKEN' },
  operator: { email: 'ops@example.com', telegram: { accountId: 'jerry', chatId: 5001 } },
};
const HANDLERS = ['telegram-webhook', 'hooks', 'outbox', 'cron-dispatch', 'health', 'dashboard', 'compute'];

let fleet: SynthedFleet;
beforeAll(() => {
  // An account with Lambda's default quota of 1,000 concurrent executions.
  fleet = synthFleet(CONFIG, { lambdaConcurrency: '1000' });
});

describe('the stacks', () => {
  it('are one control-plane stack and one stack per agent, each deployable by name', () => {
    expect([...fleet.templates.keys()].sort()).toEqual(['demo-agent-fran', 'demo-agent-grif', 'demo-agent-jerry', 'demo-agent-ray', 'demo-control-plane']);
    for (const s of fleet.assembly.stacks.filter((s) => s.stackName !== 'demo-control-plane')) {
      expect(s.dependencies.map((d) => d.id)).toContain('demo-control-plane');
    }
  });

  it('pass cdk-nag AwsSolutions with every acknowledgement carrying a reason', () => {
    const nag = nagReport(fleet);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    for (const s of nag.suppressedViolations ?? []) expect(s.reason.length).toBeGreaterThan(40);
  });

  it('report every acknowledgement made anywhere in the app, each suppressing a finding where it was made', () => {
    const made = acknowledgements(fleet.app);
    // A bare rule id (`AwsSolutions-ECS2`) is dropped by cdk-nag before the report is written: none may be left.
    expect(made.filter((a) => !a.id.startsWith('AwsSolutions::'))).toEqual([]);
    const reported = new Set(
      nagReport(fleet).suppressedViolations.map((s: { acknowledgedAt: string; acknowledgedId: string }) => `${s.acknowledgedAt} ${s.acknowledgedId}`),
    );
    // Every acknowledgement suppresses a real finding (none is stale), so every one is in the report with its reason.
    expect(made.map((a) => `${a.path} ${a.id}`).filter((a) => !reported.has(a))).toEqual([]);
    const rules = new Set(made.map((a) => /AwsSolutions-([A-Z]+\d+)/.exec(a.id)![1]));
    expect([...rules].sort()).toEqual(['ECS2', 'ECS4', 'IAM5', 'S1', 'SMG4', 'SQS3']);
  });

  it('give each secret the rotation reason true for what it holds', () => {
    const smg4 = Object.fromEntries(
      acknowledgements(fleet.app)
        .filter((a) => a.id === 'AwsSolutions::AwsSolutions-SMG4')
        .map((a) => [a.path, a.reason]),
    );
    expect(smg4).toEqual({
      'demo-control-plane/TelegramSecret': NO_ROTATION.telegram,
      'demo-control-plane/HooksSecret': NO_ROTATION.hooks,
      'demo-control-plane/DashboardSecret': NO_ROTATION.dashboard,
      ...Object.fromEntries(['jerry', 'fran', 'grif', 'ray'].map((id) => [`demo-agent-${id}/Secret`, NO_ROTATION.agent])),
    });
  });
});

/** The logical id of the template parameter CloudFormation fills from the SSM parameter `name`. */
function ssmParameter(t: { toJSON(): Record<string, any> }, name: string): string {
  const [id] =
    Object.entries<any>(t.toJSON().Parameters ?? {}).find(([, p]) => p.Default === name && String(p.Type).startsWith('AWS::SSM::Parameter::Value<')) ?? [];
  if (!id) throw new Error(`the template reads no SSM parameter ${name}`);
  return id;
}

function nagReport(synthed: SynthedFleet) {
  const report = JSON.parse(readFileSync(join(synthed.assembly.directory, 'validation-report.json'), 'utf8'));
  return report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
}

/**
 * Every cdk-nag acknowledgement recorded on any construct of the app: where, which finding,
 * why. (CDK acknowledges findings of its own CloudFormation-Validate plugin too; not ours.)
 */
function acknowledgements(app: App): { path: string; id: string; reason: string }[] {
  return app.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ path: c.node.path, id, reason }))),
    )
    .filter((a) => a.id.includes('AwsSolutions-'));
}

describe('the control-plane stack', () => {
  const cp = () => fleet.template('demo-control-plane');

  it('keeps the registry and sessions tables through a teardown, refusing their deletion, and lets the expiring ones and the spend count go with the stack', () => {
    const tables = Object.values(cp().findResources('AWS::DynamoDB::Table')).map((t) => ({
      name: t.Properties.TableName,
      deletion: t.DeletionPolicy,
      replace: t.UpdateReplacePolicy,
      protectedFromDelete: t.Properties.DeletionProtectionEnabled ?? false,
    }));
    const kept = { deletion: 'Retain', replace: 'Retain', protectedFromDelete: true };
    const gone = { deletion: 'Delete', replace: 'Delete', protectedFromDelete: false };
    expect(tables.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'demo-dedupe', ...gone },
      { name: 'demo-deliveries', ...gone },
      { name: 'demo-origins', ...gone },
      { name: 'demo-registry', ...kept },
      { name: 'demo-sessions', ...kept },
      // Budgets (#31): a month's count matters while the fleet runs; a teardown ends it.
      { name: 'demo-spend', ...gone },
    ]);
  });

  it('is protected from termination; the agent stacks, which `clawfleet agents remove` deletes, are not', () => {
    for (const s of fleet.assembly.stacks) expect(s.terminationProtection ?? false, s.stackName).toBe(s.stackName === 'demo-control-plane');
  });

  it('lists every resource a teardown keeps, and only those, for `clawfleet destroy` to print', () => {
    const kept = [...fleet.templates.values()].flatMap((t) =>
      Object.values<any>(t.Resources)
        .filter((r) => r.DeletionPolicy === 'Retain')
        .map((r) => `${r.Type} ${r.Properties?.TableName ?? ''}`.trim()),
    );
    const listed = retainedResources('demo').map((r) => `${r.type} ${r.name ?? ''}`.trim());
    expect(kept.sort()).toEqual(listed.sort());
    for (const r of retainedResources('demo')) expect(r.name ?? r.parameter, r.what).toBeTruthy();
  });

  it('has the session, dedupe, delivery, registry and origins tables keyed by pk with the expiresAt TTL, billed per request', () => {
    for (const name of ['demo-sessions', 'demo-dedupe', 'demo-deliveries', 'demo-registry', 'demo-origins']) {
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
    for (const name of HANDLERS) {
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

  it('serves the Telegram webhook, hooks and the dashboard on Function URLs (each authenticating in its handler), and outputs each', () => {
    const urls = Object.values(cp().findResources('AWS::Lambda::Url'));
    expect(urls.map((u) => u.Properties.TargetFunctionArn['Fn::GetAtt'][0]).sort()).toEqual([
      expect.stringMatching(/^FunctionsDashboardFunction/),
      expect.stringMatching(/^FunctionsHooksFunction/),
      expect.stringMatching(/^FunctionsTelegramWebhookFunction/),
    ]);
    for (const url of urls) expect(url.Properties.AuthType).toBe('NONE');
    const outputs = cp().toJSON().Outputs;
    for (const key of ['TelegramWebhookUrl', 'HooksUrl', 'DashboardUrl']) expect(outputs[key].Value['Fn::GetAtt'][1]).toBe('FunctionUrl');
  });

  it('deploys the hooks function only for a fleet with hooks', () => {
    const plain = synthFleet(EXAMPLE_CONFIG, {}, { nag: false });
    expect([...plain.stacks.controlPlane.functions.functions.keys()]).not.toContain('hooks');
    expect(plain.template('demo-control-plane').toJSON().Outputs.HooksUrl).toBeUndefined();
  });

  it('creates the Telegram, hooks and dashboard secrets without a value', () => {
    for (const name of ['telegram', 'hooks', 'dashboard']) {
      cp().hasResourceProperties('AWS::SecretsManager::Secret', {
        Name: `clawfleet/demo/control/${name}`,
        SecretString: Match.absent(),
        GenerateSecretString: Match.absent(),
      });
    }
  });

  it('counts refused outbox envelopes from the log, per agent and in total, and alarms on any', () => {
    const filters = Object.values(cp().findResources('AWS::Logs::MetricFilter')).map((r) => r.Properties);
    expect(filters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          FilterPattern: '{ $.metric = "OutboxRejected" }',
          MetricTransformations: [expect.objectContaining({ MetricName: 'OutboxRejected', Dimensions: [{ Key: 'Agent', Value: '$.agentId' }] })],
        }),
      ]),
    );
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-outbox-OutboxRejected', MetricName: 'OutboxRejected', Threshold: 1 });
  });

  it('has compute, the one holder of ECS power, invoked asynchronously: retried twice, dropped after 10 minutes, failures to its own alarmed DLQ', () => {
    const [dlqId] = Object.keys(cp().findResources('AWS::SQS::Queue', { Properties: { QueueName: 'demo-compute-dlq' } }));
    expect(dlqId).toBeDefined();
    cp().hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: Match.stringLikeRegexp('^FunctionsComputeFunction') },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
    });
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'demo-compute-dlq',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
    });
  });

  it('tells every function that wakes agents to ask compute, and compute itself nothing of the kind', () => {
    const env = (name: string) =>
      Object.values(cp().findResources('AWS::Lambda::Function', { Properties: { FunctionName: `demo-${name}` } }))[0]!.Properties.Environment?.Variables ?? {};
    for (const name of ['telegram-webhook', 'hooks', 'outbox', 'cron-dispatch', 'health', 'dashboard'])
      expect(env(name).CLAWFLEET_COMPUTE_FUNCTION, name).toBe('demo-compute');
    expect(env('compute').CLAWFLEET_COMPUTE_FUNCTION).toBeUndefined();
  });

  it('reserves concurrency for the public functions, capping a flood, and one for compute; the rest share the account’s pool', () => {
    const reserved = Object.fromEntries(
      Object.values(cp().findResources('AWS::Lambda::Function', { Properties: { FunctionName: Match.stringLikeRegexp('^demo-') } })).map((f) => [
        f.Properties.FunctionName,
        f.Properties.ReservedConcurrentExecutions,
      ]),
    );
    expect(reserved).toEqual({
      'demo-telegram-webhook': 10,
      'demo-hooks': 5,
      'demo-dashboard': 5,
      'demo-compute': 1,
      'demo-outbox': undefined,
      'demo-cron-dispatch': undefined,
      'demo-health': undefined,
    });
    for (const name of ['telegram-webhook', 'hooks', 'dashboard'])
      cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: `demo-${name}-throttles`, MetricName: 'Throttles', Threshold: 1 });
  });

  it('sizes the reservations from what the account can give: all of them while Lambda keeps its 100 unreserved, else none, and says which', () => {
    const reservedAt = (context: Record<string, string>) => {
      const synthed = synthFleet(CONFIG, context, { nag: false });
      const t = synthed.template('demo-control-plane');
      const reserved = Object.values(t.findResources('AWS::Lambda::Function'))
        .map((f) => f.Properties.ReservedConcurrentExecutions)
        .filter((n) => n !== undefined);
      const throttleAlarms = Object.keys(t.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Throttles' } })).length;
      const said = synthed.assembly.getStackByName('demo-control-plane').messages.map((m) => String(m.entry.data));
      return { total: reserved.reduce((a, b) => a + b, 0), throttleAlarms, said: said.filter((m) => m.startsWith('reserved concurrency')) };
    };
    // This fleet (webhook, hooks, dashboard, compute) reserves 21, so it needs 121.
    expect(reservedAt({ lambdaConcurrency: '121' })).toEqual({
      total: 21,
      throttleAlarms: 3,
      said: ["reserved concurrency: telegram-webhook 10, hooks 5, dashboard 5, compute 1 (21 of the account's 121; 100 left unreserved)"],
    });
    const tooSmall = reservedAt({ lambdaConcurrency: '120' });
    expect(tooSmall).toMatchObject({ total: 0, throttleAlarms: 0 });
    expect(tooSmall.said[0]).toMatch(/none \(the account gives 120 concurrent executions; reserving 21 .* needs 121/);
    // A new account (10) and one whose figure nobody gave reserve nothing: the deploy cannot fail on it.
    expect(reservedAt({ lambdaConcurrency: '10' })).toMatchObject({ total: 0, throttleAlarms: 0 });
    const unknown = reservedAt({});
    expect(unknown).toMatchObject({ total: 0, throttleAlarms: 0 });
    expect(unknown.said[0]).toMatch(/lambdaConcurrency=<n> of at least 121/);
    expect(reservedAt({ lambdaConcurrency: '5000', reservedConcurrency: 'false' })).toMatchObject({ total: 0, throttleAlarms: 0 });
    expect(() => synthFleet(EXAMPLE_CONFIG, { reservedConcurrency: 'sometimes' }, { nag: false })).toThrow(/context.reservedConcurrency/);
    expect(() => synthFleet(EXAMPLE_CONFIG, { lambdaConcurrency: 'lots' }, { nag: false })).toThrow(/context.lambdaConcurrency/);
  });

  it('tells the webhook and the outbox the media bucket, the one each stores in or reads from', () => {
    const mediaId = Stack.of(fleet.stacks.controlPlane).getLogicalId(fleet.stacks.controlPlane.media.bucket.node.defaultChild as CfnElement);
    for (const name of ['demo-telegram-webhook', 'demo-outbox']) {
      const [fn] = Object.values(cp().findResources('AWS::Lambda::Function', { Properties: { FunctionName: name } }));
      expect(fn!.Properties.Environment.Variables.CLAWFLEET_MEDIA_BUCKET, name).toEqual({ Ref: mediaId });
    }
  });

  it('gives the outbox the time and memory of one 50 MB file sent with its 120 s upload budget, and its queues six times that as visibility', () => {
    cp().hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'demo-outbox', Timeout: OUTBOX_TIMEOUT_SECONDS, MemorySize: 512 });
    // The upload's own budget (bot-api.ts) plus reading the file from S3 must fit with room for the batch's text.
    expect(OUTBOX_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(120 + 30);
    for (const agent of ['fran', 'jerry', 'grif', 'ray']) {
      fleet.template(`demo-agent-${agent}`).hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `demo-outbox-${agent}.fifo`,
        VisibilityTimeout: OUTBOX_TIMEOUT_SECONDS * 6,
      });
    }
  });

  it('tells the outbox which function and role agents’ own schedules use', () => {
    const [outbox] = Object.values(cp().findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'demo-outbox' } }));
    const env = outbox!.Properties.Environment.Variables;
    expect(JSON.stringify(env.CLAWFLEET_CRON_FUNCTION_ARN)).toContain(':function:demo-cron-dispatch');
    // Agents' own jobs get the same dead-letter queue as the config's.
    expect(JSON.stringify(env.CLAWFLEET_SCHEDULES_DLQ_ARN)).toContain('CronInvokerDeadLetters');
    expect(env.CLAWFLEET_SCHEDULER_ROLE_ARN).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^CronInvokerRole/), 'Arn'] });
  });

  it('lets runtimes out only to HTTPS, HTTP (agents fetch the web) and NFS in the VPC, and the file system in from their security group alone', () => {
    const groups = cp().findResources('AWS::EC2::SecurityGroup');
    const [runtimeId, runtime] = Object.entries(groups).find(([id]) => id.startsWith('NetworkRuntimeSecurityGroup'))!;
    expect(runtime.Properties.SecurityGroupEgress.map((r: Record<string, unknown>) => [r.IpProtocol, r.FromPort, r.ToPort, r.CidrIp])).toEqual([
      ['tcp', 80, 80, '0.0.0.0/0'],
      ['tcp', 443, 443, '0.0.0.0/0'],
      ['tcp', 2049, 2049, '10.0.0.0/16'],
    ]);
    expect(runtime.Properties.SecurityGroupIngress).toBeUndefined();
    const [, efs] = Object.entries(groups).find(([id]) => id.startsWith('NetworkWorkspacesEfsSecurityGroup'))!;
    expect(efs.Properties.SecurityGroupIngress).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 2049, ToPort: 2049, SourceSecurityGroupId: { 'Fn::GetAtt': [runtimeId, 'GroupId'] } }),
    ]);
    // Inline, and nothing else opens a port: no separate ingress or egress resource.
    expect(Object.keys(cp().findResources('AWS::EC2::SecurityGroupIngress'))).toEqual([]);
    expect(Object.keys(cp().findResources('AWS::EC2::SecurityGroupEgress'))).toEqual([]);
  });

  it('opens the ports the config’s URLs name, and no HTTP where no agent may fetch the web', () => {
    const ported: FleetConfigInput = {
      ...CONFIG,
      agents: {
        ...CONFIG.agents,
        defaults: { ...CONFIG.agents.defaults, tools: { deny: ['group:web'] } },
        list: CONFIG.agents.list.map((a) => (a.id === 'fran' ? { ...a, mcp: { servers: { graph: { url: 'https://mcp.example.com:8443/mcp' } } } } : a)),
      },
      models: { providers: { ...CONFIG.models.providers, local: { api: 'openai-completions', baseUrl: 'http://10.1.2.3:11434/v1' } } },
    };
    const t = synthFleet(ported, {}, { nag: false }).template('demo-control-plane');
    const [runtime] = Object.entries(t.findResources('AWS::EC2::SecurityGroup')).filter(([id]) => id.startsWith('NetworkRuntimeSecurityGroup'));
    expect(runtime![1].Properties.SecurityGroupEgress.map((r: Record<string, unknown>) => `${r.FromPort} ${r.Description}`)).toEqual([
      '443 HTTPS: AWS APIs, the image registry, model providers, MCP servers, web pages',
      '8443 MCP server "graph" of fran',
      '11434 model provider "local"',
      '2049 NFS to the workspaces file system',
    ]);
  });

  it('gives every function, the custom resources’ too, a log group with a retention', () => {
    const groups = cp().findResources('AWS::Logs::LogGroup');
    for (const [id, fn] of Object.entries(cp().findResources('AWS::Lambda::Function'))) {
      const ref = fn.Properties.LoggingConfig?.LogGroup?.Ref;
      expect(ref, id).toBeDefined();
      expect(groups[ref]!.Properties.RetentionInDays, id).toBe(30);
    }
    cp().hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/clawfleet/demo/custom-resources/VpcRestrictDefaultSG', RetentionInDays: 30 });
  });

  it('has the scheduler’s role and a dead-letter queue for failed schedule invocations, alarmed, the role published for the agent stacks', () => {
    cp().hasResourceProperties('AWS::SQS::Queue', { QueueName: 'demo-schedules-dlq', SqsManagedSseEnabled: true });
    cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-schedules-dlq', MetricName: 'ApproximateNumberOfMessagesVisible' });
    cp().hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/clawfleet/demo/cron/scheduler-role-arn',
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^CronInvokerRole'), 'Arn'] },
    });
  });

  it('publishes the network, file system, staging and media buckets and scheduler role in SSM, and exports nothing', () => {
    const params = Object.values(cp().findResources('AWS::SSM::Parameter')).map((r) => [r.Properties.Name, r.Properties.Type]);
    expect(params.sort()).toEqual([
      ['/clawfleet/demo/cron/scheduler-role-arn', 'String'],
      ['/clawfleet/demo/media/bucket', 'String'],
      ['/clawfleet/demo/network/runtime-security-group-id', 'String'],
      ['/clawfleet/demo/network/subnet-ids', 'StringList'],
      ['/clawfleet/demo/workspaces/file-system-id', 'String'],
      ['/clawfleet/demo/workspaces/staging-bucket', 'String'],
    ]);
    for (const [name, t] of fleet.templates)
      expect(
        Object.values<any>(t.Outputs ?? {}).filter((o) => o.Export),
        name,
      ).toEqual([]);
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
      Properties: {
        Encrypted: true,
        FileSystemPolicy: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('backs the workspaces up daily with AWS Backup (EFS automatic backups)', () => {
    cp().hasResourceProperties('AWS::EFS::FileSystem', { BackupPolicy: { Status: 'ENABLED' } });
  });

  it('stages workspaces in a private, encrypted, TLS-only bucket whose copies expire within a week and which survives a teardown', () => {
    const stagingId = Stack.of(fleet.stacks.controlPlane).getLogicalId(fleet.stacks.controlPlane.staging.bucket.node.defaultChild as CfnElement);
    const [id, bucket] = Object.entries(cp().findResources('AWS::S3::Bucket')).find(([k]) => k === stagingId)!;
    // The staging bucket and the media bucket (#16).
    expect(Object.keys(cp().findResources('AWS::S3::Bucket'))).toHaveLength(2);
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] },
    });
    const policy = Object.values(cp().findResources('AWS::S3::BucketPolicy')).find((p) => p.Properties.Bucket.Ref === id)!;
    expect(policy.Properties.Bucket).toEqual({ Ref: id });
    // It grants nothing: it only refuses plain HTTP. Each agent's grant is its own task role's.
    expect(policy.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('keeps attachments and agents’ files in a private, encrypted, TLS-only media bucket whose objects expire after media.expireDays (default 30)', () => {
    const mediaId = Stack.of(fleet.stacks.controlPlane).getLogicalId(fleet.stacks.controlPlane.media.bucket.node.defaultChild as CfnElement);
    const bucket = cp().findResources('AWS::S3::Bucket')[mediaId]!;
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] },
    });
    const policy = Object.values(cp().findResources('AWS::S3::BucketPolicy')).find((p) => p.Properties.Bucket.Ref === mediaId)!;
    expect(policy.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
    const shorter = synthFleet({ ...EXAMPLE_CONFIG, media: { expireDays: 7 } });
    const resources = shorter.templates.get(shorter.stacks.controlPlane.stackName)!.Resources as Record<
      string,
      { Properties: { LifecycleConfiguration: { Rules: { ExpirationInDays: number }[] } } }
    >;
    const shorterId = Stack.of(shorter.stacks.controlPlane).getLogicalId(shorter.stacks.controlPlane.media.bucket.node.defaultChild as CfnElement);
    expect(resources[shorterId]!.Properties.LifecycleConfiguration.Rules[0]!.ExpirationInDays).toBe(7);
  });

  it('grants nothing in the file-system policy: it only denies clients without TLS', () => {
    const [fs] = Object.values(cp().findResources('AWS::EFS::FileSystem'));
    expect(fs!.Properties.FileSystemPolicy.Statement.map((st: { Effect: string }) => st.Effect)).toEqual(['Deny']);
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
    for (const name of ['hooks', 'dashboard']) cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: `demo-${name}-5xx` });
    for (const name of ['cron-dispatch', 'dashboard']) cp().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: `demo-${name}-errors` });
  });
});

describe('an agent stack', () => {
  const jerry = () => fleet.template('demo-agent-jerry');
  const fran = () => fleet.template('demo-agent-fran');

  it('finds the control plane’s resources by SSM parameter and by name, never by a reference into its template', () => {
    const controlPlaneIds = Object.keys(fleet.template('demo-control-plane').toJSON().Resources);
    for (const [name, t] of fleet.templates) {
      if (name === 'demo-control-plane') continue;
      const text = JSON.stringify(t);
      expect(text, name).not.toContain('Fn::ImportValue');
      // Not one logical id of the control plane: replacing any of its resources leaves this template as it is.
      expect(
        controlPlaneIds.filter((id) => text.includes(`"${id}"`)),
        name,
      ).toEqual([]);
    }
    const service = Object.values(fran().findResources('AWS::ECS::Service'))[0]!.Properties;
    const subnets = ssmParameter(fran(), '/clawfleet/demo/network/subnet-ids');
    expect(service.Cluster).toBe('clawfleet-demo');
    expect(service.NetworkConfiguration.AwsvpcConfiguration).toEqual({
      AssignPublicIp: 'ENABLED',
      SecurityGroups: [{ Ref: ssmParameter(fran(), '/clawfleet/demo/network/runtime-security-group-id') }],
      Subnets: [{ 'Fn::Select': [0, { Ref: subnets }] }, { 'Fn::Select': [1, { Ref: subnets }] }],
    });
    expect(fran().toJSON().Parameters[subnets].Type).toBe('AWS::SSM::Parameter::Value<List<String>>');
    fran().hasResourceProperties('AWS::EFS::AccessPoint', { FileSystemId: { Ref: ssmParameter(fran(), '/clawfleet/demo/workspaces/file-system-id') } });
  });

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

  it('schedules its cron jobs and heartbeat in the fleet’s group, each invoking cron-dispatch with its trigger, retried, then dead-lettered', () => {
    const expected = configSchedules(parseConfig(CONFIG)).filter((s) => s.trigger.agentId === 'fran');
    expect(expected.map((s) => s.name).sort()).toEqual(['config-fran-standup', 'heartbeat-fran']);
    for (const spec of expected) {
      fran().hasResourceProperties('AWS::Scheduler::Schedule', {
        Name: spec.name,
        GroupName: 'clawfleet-demo',
        ScheduleExpression: spec.expression,
        ScheduleExpressionTimezone: spec.timezone ?? Match.absent(),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: { 'Fn::Join': ['', Match.arrayWith([':function:demo-cron-dispatch'])] },
          RoleArn: { Ref: ssmParameter(fran(), '/clawfleet/demo/cron/scheduler-role-arn') },
          Input: scheduleInput(spec.trigger),
          RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 },
          DeadLetterConfig: { Arn: { 'Fn::Join': ['', Match.arrayWith([':demo-schedules-dlq'])] } },
        },
      });
    }
    fran().hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'config-fran-standup',
      ScheduleExpression: 'cron(0 9 ? * 2-6 *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
    });
    fran().hasResourceProperties('AWS::Scheduler::Schedule', { Name: 'heartbeat-fran', ScheduleExpression: 'rate(30 minutes)' });
    // Nobody else's schedules: they live in their own agents' stacks.
    jerry().resourceCountIs('AWS::Scheduler::Schedule', 0);
    fleet.template('demo-control-plane').resourceCountIs('AWS::Scheduler::Schedule', 1); // the health tick
  });

  it('creates the agent’s secret without a value', () => {
    fran().hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: 'clawfleet/demo/agents/fran',
      SecretString: Match.absent(),
      GenerateSecretString: Match.absent(),
    });
  });

  it('tells every agent’s runtime the media bucket, by the control plane’s SSM parameter', () => {
    for (const agent of ['fran', 'jerry', 'grif', 'ray']) {
      const t = fleet.template(`demo-agent-${agent}`);
      const task = Object.values(t.findResources('AWS::ECS::TaskDefinition'))[0]!;
      const env = Object.fromEntries(task.Properties.ContainerDefinitions[0].Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
      expect(env.CLAWFLEET_MEDIA_BUCKET, agent).toEqual({ Ref: ssmParameter(t, '/clawfleet/demo/media/bucket') });
    }
  });

  it('tells a metered agent’s runtime the spend table, and lets its task role reach its own ledger items only (#31); an agent without a budget neither', () => {
    const envOf = (agent: string) => {
      const task = Object.values(fleet.template(`demo-agent-${agent}`).findResources('AWS::ECS::TaskDefinition'))[0]!;
      return Object.fromEntries(task.Properties.ContainerDefinitions[0].Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
    };
    expect(envOf('fran').CLAWFLEET_SPEND_TABLE).toBe('demo-spend');
    expect(envOf('jerry').CLAWFLEET_SPEND_TABLE).toBeUndefined();
    fran().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'OwnSpendLedger',
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['fran#*'] }, Null: { 'dynamodb:LeadingKeys': 'false' } },
          }),
        ]),
      },
    });
    expect(JSON.stringify(jerry().findResources('AWS::IAM::Policy'))).not.toContain('OwnSpendLedger');
  });

  it('sizes the task from the runtime profile and hands the runtime only its own config slice and queues', () => {
    jerry().hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '2048', Memory: '4096', RequiresCompatibilities: ['FARGATE'] });
    fran().hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '256', Memory: '512' });
    const task = Object.values(fran().findResources('AWS::ECS::TaskDefinition'))[0]!;
    const env = Object.fromEntries(task.Properties.ContainerDefinitions[0].Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
    const config = parseConfig(CONFIG);
    expect(RuntimeConfigSchema.parse(JSON.parse(env.CLAWFLEET_RUNTIME_CONFIG))).toEqual(runtimeConfigFor(config, 'fran'));
    expect(env).toMatchObject({ CLAWFLEET_AGENT_ID: 'fran', CLAWFLEET_SECRET_ID: 'clawfleet/demo/agents/fran', CLAWFLEET_WORKSPACE: '/workspace' });
    expect(env.CLAWFLEET_INBOX_URL.Ref).toMatch(/^QueuesInbox[0-9A-F]+$/);
    expect(env.CLAWFLEET_DLQ_URL.Ref).toMatch(/^QueuesInboxDlq[0-9A-F]+$/);
    expect(JSON.stringify(env)).not.toMatch(/jerry|grif|ray/);
    // Only names the runtime reads (shared/runtime-env.ts): a misspelt one would be ignored silently.
    expect(Object.keys(env).filter((name) => !(RUNTIME_ENV_NAMES as string[]).includes(name))).toEqual([]);
  });

  it('carries the image’s HEALTHCHECK as the container health check, command and timing alike', () => {
    // The Dockerfile's HEALTHCHECK: options, then a continued line with the exec-form CMD.
    const dockerfile = readFileSync(new URL('../../runtime-image/Dockerfile', import.meta.url), 'utf8').replace(/\\\n\s*/g, ' ');
    const m = /^HEALTHCHECK\s+((?:--[a-z-]+=\S+\s+)*)CMD\s+(\[.*\])\s*$/m.exec(dockerfile);
    expect(m, 'a HEALTHCHECK with options and an exec-form CMD').not.toBeNull();
    const opts = Object.fromEntries([...m![1]!.matchAll(/--([a-z-]+)=(\d+)s/g)].map(([, k, v]) => [k, Number(v)]));
    const command = JSON.parse(m![2]!);
    const [container] = Object.values(fran().findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.ContainerDefinitions;
    expect(container.HealthCheck).toEqual({
      Command: ['CMD', ...command],
      Interval: opts.interval,
      Timeout: opts.timeout,
      StartPeriod: opts['start-period'],
      Retries: Number(/--retries=(\d+)/.exec(m![1]!)![1]),
    });
    // The file it reads is named in the task's environment too, whatever the image sets.
    expect(container.Environment).toEqual(expect.arrayContaining([{ Name: 'CLAWFLEET_HEALTH_FILE', Value: '/tmp/clawfleet-alive' }]));
    expect(dockerfile).toContain('CLAWFLEET_HEALTH_FILE=/tmp/clawfleet-alive');
  });

  it('runs on Graviton unless the agent names x86_64, or is on Spot and names nothing', () => {
    const platform = (id: string) => Object.values(fleet.template(`demo-agent-${id}`).findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.RuntimePlatform;
    expect(platform('jerry')).toEqual({ CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' });
    expect(platform('fran')).toEqual({ CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' });
    expect(platform('grif')).toEqual({ CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' });
    expect(platform('ray')).toEqual({ CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' });
  });

  it('builds the runtime image once per architecture in use, for that platform, and passes cdk-nag that way too', () => {
    const built = synthFleet(CONFIG, { runtimeImage: undefined });
    // The fleet's one execution role has its ECR login (Resource::*): acknowledged, and reported.
    const nag = nagReport(built);
    expect(nag.violations).toEqual([]);
    const reported = new Set(
      nag.suppressedViolations.map((v: { acknowledgedAt: string; acknowledgedId: string }) => `${v.acknowledgedAt} ${v.acknowledgedId}`),
    );
    const made = acknowledgements(built.app).map((a) => `${a.path} ${a.id}`);
    expect(made.filter((a) => !reported.has(a))).toEqual([]);
    expect(made.filter((a) => a.includes('/TaskExecution/Role ') && a.includes('Resource::*'))).toHaveLength(1);
    // The asset manifest beside each stack lists the images `cdk deploy` builds and pushes.
    const images = (id: string) => {
      const manifest = built.assembly.artifacts.find((a) => a.id === `demo-agent-${id}.assets`) as AssetManifestArtifact;
      return Object.entries(manifest.contents.dockerImages ?? {}).map(([hash, image]) => ({ id: hash, platform: image.source.platform }));
    };
    const [jerry] = images('jerry');
    expect(jerry!.platform).toBe('linux/arm64');
    expect(images('fran')).toEqual([jerry]);
    const [grif] = images('grif');
    expect(grif!.platform).toBe('linux/amd64');
    expect(grif!.id).not.toBe(jerry!.id);
    expect(images('ray')).toEqual([grif]);
  });

  it('mounts its own EFS access point with IAM authorization and encryption in transit', () => {
    fran().hasResourceProperties('AWS::EFS::AccessPoint', { RootDirectory: { Path: '/agents/fran' }, PosixUser: { Uid: '1000', Gid: '1000' } });
    fran().hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [
        {
          Name: 'workspace',
          EFSVolumeConfiguration: { TransitEncryption: 'ENABLED', AuthorizationConfig: { IAM: 'ENABLED', AccessPointId: Match.anyValue() } },
        },
      ],
      ContainerDefinitions: [Match.objectLike({ MountPoints: [{ ContainerPath: '/workspace', SourceVolume: 'workspace', ReadOnly: false }] })],
    });
  });

  it('has a one-off workspace archive task: its workspace and archive access points, a role for those alone, the fleet image, no capabilities', () => {
    fran().hasResourceProperties('AWS::EFS::AccessPoint', {
      RootDirectory: { Path: '/archive/fran', CreationInfo: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '700' } },
      PosixUser: { Uid: '1000', Gid: '1000' },
    });
    const archive = Object.values(fran().findResources('AWS::ECS::TaskDefinition', { Properties: { Family: 'demo-agent-fran-archive' } }));
    expect(archive).toHaveLength(1);
    const task = archive[0]!.Properties;
    const runtime = Object.values(fran().findResources('AWS::ECS::TaskDefinition', { Properties: { Family: 'demo-agent-fran' } }))[0]!.Properties;
    expect(task.Volumes).toEqual([
      {
        Name: 'workspace',
        EFSVolumeConfiguration: {
          FilesystemId: expect.anything(),
          TransitEncryption: 'ENABLED',
          AuthorizationConfig: { IAM: 'ENABLED', AccessPointId: runtime.Volumes[0].EFSVolumeConfiguration.AuthorizationConfig.AccessPointId },
        },
      },
      {
        Name: 'archive',
        EFSVolumeConfiguration: {
          FilesystemId: expect.anything(),
          TransitEncryption: 'ENABLED',
          AuthorizationConfig: { IAM: 'ENABLED', AccessPointId: expect.anything() },
        },
      },
    ]);
    expect(task.Volumes[1].EFSVolumeConfiguration.AuthorizationConfig.AccessPointId).not.toEqual(
      task.Volumes[0].EFSVolumeConfiguration.AuthorizationConfig.AccessPointId,
    );
    const [container] = task.ContainerDefinitions;
    expect(container).toMatchObject({
      Image: runtime.ContainerDefinitions[0].Image,
      User: '1000:1000',
      ReadonlyRootFilesystem: true,
      LinuxParameters: { Capabilities: { Drop: ['ALL'] } },
      EntryPoint: ['node', '-e', ARCHIVE_SCRIPT],
      MountPoints: [
        { ContainerPath: '/workspace', SourceVolume: 'workspace', ReadOnly: false },
        { ContainerPath: '/archive', SourceVolume: 'archive', ReadOnly: false },
      ],
      LogConfiguration: {
        LogDriver: 'awslogs',
        Options: expect.objectContaining({
          'awslogs-stream-prefix': 'archive',
          'awslogs-group': runtime.ContainerDefinitions[0].LogConfiguration.Options['awslogs-group'],
        }),
      },
    });
    expect(container.Environment).toBeUndefined();
    // Its own role (not the runtime's), the fleet's execution role (as the runtime's: same image, same log group).
    expect(task.TaskRoleArn).not.toEqual(runtime.TaskRoleArn);
    expect(task.ExecutionRoleArn).toEqual(runtime.ExecutionRoleArn);
    expect(task.RuntimePlatform).toEqual(runtime.RuntimePlatform);
    fran().hasOutput('ArchiveTaskFamily', { Value: 'demo-agent-fran-archive' });
  });

  it('runs the runtime as root in its own container (to drop exec to tool uids) with the capabilities it does not need dropped', () => {
    fran().hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [
        Match.objectLike({
          User: '0',
          LinuxParameters: { Capabilities: { Drop: ['NET_RAW', 'MKNOD', 'SYS_CHROOT', 'AUDIT_WRITE', 'SETFCAP', 'NET_BIND_SERVICE', 'FSETID'] } },
        }),
      ],
    });
    const task = Object.values(fran().findResources('AWS::ECS::TaskDefinition'))[0]!;
    const caps = task.Properties.ContainerDefinitions[0].LinuxParameters.Capabilities;
    // What uid switching and killing need stays; nothing is added.
    for (const kept of ['SETUID', 'SETGID', 'SETPCAP', 'KILL', 'CHOWN', 'FOWNER', 'DAC_OVERRIDE']) expect(caps.Drop).not.toContain(kept);
    expect(caps.Add).toBeUndefined();
  });

  it('runs an operator’s own runtime.image as its USER says (without root and a tool uid pool, its exec stays off)', () => {
    const config: FleetConfigInput = {
      ...CONFIG,
      agents: {
        ...CONFIG.agents,
        list: CONFIG.agents.list.map((a) => (a.id === 'fran' ? { ...a, runtime: { ...a.runtime, image: 'registry.example.com/my-runtime:1' } } : a)),
      },
    };
    const task = Object.values(synthFleet(config, {}, { nag: false }).template('demo-agent-fran').findResources('AWS::ECS::TaskDefinition'))[0]!;
    expect(task.Properties.ContainerDefinitions[0].Image).toBe('registry.example.com/my-runtime:1');
    expect(task.Properties.ContainerDefinitions[0].User).toBeUndefined();
  });

  it('leaves the desired count to λ compute: a redeploy names none, so CloudFormation keeps the running count; a creating deploy names 0', () => {
    const service = { DeploymentConfiguration: { DeploymentCircuitBreaker: { Enable: true, Rollback: true }, MinimumHealthyPercent: 0, MaximumPercent: 100 } };
    jerry().hasResourceProperties('AWS::ECS::Service', {
      ...service,
      ServiceName: 'agent-jerry',
      CapacityProviderStrategy: [{ CapacityProvider: 'FARGATE', Weight: 1 }],
    });
    fleet
      .template('demo-agent-ray')
      .hasResourceProperties('AWS::ECS::Service', { CapacityProviderStrategy: [{ CapacityProvider: 'FARGATE_SPOT', Weight: 1 }] });
    const desired = (f: SynthedFleet) =>
      Object.fromEntries(
        ['jerry', 'fran', 'grif', 'ray'].map((id) => {
          const [svc] = Object.values(f.template(`demo-agent-${id}`).findResources('AWS::ECS::Service'));
          return [id, svc!.Properties.DesiredCount];
        }),
      );
    // A redeploy (the default): no agent's template names a count, always-on jerry's neither.
    expect(desired(fleet)).toEqual({ jerry: undefined, fran: undefined, grif: undefined, ray: undefined });
    // The deploy that creates fran's stack starts her service at 0; the others are left as they run.
    expect(desired(synthFleet(CONFIG, { newAgents: 'fran' }, { nag: false }))).toEqual({ jerry: undefined, fran: 0, grif: undefined, ray: undefined });
    // A new fleet: every service is created at 0, jerry too (the health tick starts an always-on agent).
    expect(desired(synthFleet(CONFIG, { newAgents: '*' }, { nag: false }))).toEqual({ jerry: 0, fran: 0, grif: 0, ray: 0 });
    expect(() => synthFleet(CONFIG, { newAgents: 'fran,jery' }, { nag: false })).toThrow(/context.newAgents: names "jery", which is no agent of this fleet/);
  });

  it('logs to its own log group with retention, and alarms on DLQ depth and restarts', () => {
    fran().hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/clawfleet/demo/agents/fran', RetentionInDays: 30 });
    fran().hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.msg = "ready" }',
      MetricTransformations: [Match.objectLike({ MetricName: 'RuntimeStarts', MetricNamespace: 'Clawfleet/demo' })],
    });
    for (const name of ['demo-agent-fran-inbox-dlq', 'demo-agent-fran-outbox-dlq', 'demo-agent-fran-restarts'])
      fran().hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: name });
  });
});

describe('alarms that reach a person', () => {
  const topicArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':demo-alarms']] };

  it('notify the fleet’s topic, every alarm of every stack, and those that stay on until someone acts also when resolved', () => {
    const cpTopic = { Ref: Object.keys(fleet.template('demo-control-plane').findResources('AWS::SNS::Topic'))[0] };
    const alarms: string[] = [];
    for (const [name, t] of fleet.templates) {
      for (const r of Object.values<{ Type: string; Properties: Record<string, any> }>(t.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm')) {
        const topic = name === 'demo-control-plane' ? cpTopic : topicArn;
        expect(r.Properties.AlarmActions, r.Properties.AlarmName).toEqual([topic]);
        const resolved = /-dlq$|-restarts$/.test(r.Properties.AlarmName);
        expect(r.Properties.OKActions, r.Properties.AlarmName).toEqual(resolved ? [topic] : undefined);
        alarms.push(r.Properties.AlarmName);
      }
    }
    // The control plane's 13, the 3 throttles of reserved concurrency, λ operator-alerts' errors and DLQ; 3 per agent.
    expect(alarms.filter((a) => !a.startsWith('demo-agent-'))).toHaveLength(18);
    expect(alarms.filter((a) => a.startsWith('demo-agent-'))).toHaveLength(12);
  });

  it('is one TLS-only topic CloudWatch may publish to for this fleet’s alarms, mailed to the operator and written to their chat by λ operator-alerts', () => {
    const cp = fleet.template('demo-control-plane');
    cp.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'demo-alarms' });
    const [policy] = Object.values(cp.findResources('AWS::SNS::TopicPolicy'));
    expect(policy!.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({
          Sid: 'CloudWatchAlarmsOfThisFleet',
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: {
              'aws:SourceArn': {
                'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:demo-*']],
              },
            },
          },
        }),
      ]),
    );
    cp.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    const [alerts] = Object.entries(cp.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'demo-operator-alerts' } }));
    cp.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'lambda', Endpoint: { 'Fn::GetAtt': [alerts![0], 'Arn'] } });
    cp.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: alerts![0] }, MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
    cp.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'demo-operator-alerts-dlq' });
  });

  it('has no email subscription and no λ operator-alerts for a fleet without an operator, and the alarms notify the topic all the same', () => {
    const plain = synthFleet(EXAMPLE_CONFIG, {}, { nag: false }).template('demo-control-plane');
    expect(Object.keys(plain.findResources('AWS::SNS::Subscription'))).toEqual([]);
    expect(Object.keys(plain.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'demo-operator-alerts' } }))).toEqual([]);
    for (const r of Object.values(plain.findResources('AWS::CloudWatch::Alarm'))) expect(r.Properties.AlarmActions).toHaveLength(1);
  });
});

describe('cost tags', () => {
  /** A resource's tags as the template has them (a list of Key/Value, or a map), from every property named …Tags. */
  const tagsOf = (r: { Properties?: Record<string, unknown> }): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(r.Properties ?? {})) {
      if (!key.endsWith('Tags')) continue;
      if (Array.isArray(value)) for (const t of value as { Key: string; Value: string }[]) out[t.Key] = t.Value;
      else if (value && typeof value === 'object') Object.assign(out, value);
    }
    return out;
  };

  it('are on every resource of a type that takes tags, naming the fleet and the agent (the control plane’s “control plane”)', () => {
    // The types CDK can tag, as the app's own L1 constructs say.
    const taggable = new Set(
      fleet.app.node
        .findAll()
        .filter((c): c is CfnResource => c instanceof CfnResource && TagManager.isTaggable(c))
        .map((c) => c.cfnResourceType),
    );
    expect(taggable.size).toBeGreaterThan(15);
    const untagged: string[] = [];
    let checked = 0;
    for (const [name, t] of fleet.templates) {
      const agent = name === 'demo-control-plane' ? 'control plane' : name.replace('demo-agent-', '');
      for (const [id, r] of Object.entries<{ Type: string; Properties?: Record<string, unknown> }>(t.Resources)) {
        if (!taggable.has(r.Type)) continue;
        checked++;
        const tags = tagsOf(r);
        if (tags['clawfleet:fleet'] !== 'demo' || tags['clawfleet:agent'] !== agent) untagged.push(`${name}/${id} (${r.Type}): ${JSON.stringify(tags)}`);
      }
    }
    expect(untagged).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('reach each agent’s tasks: its service turns on ECS managed tags and copies the task definition’s', () => {
    for (const id of ['jerry', 'fran', 'grif', 'ray'])
      fleet.template(`demo-agent-${id}`).hasResourceProperties('AWS::ECS::Service', { EnableECSManagedTags: true, PropagateTags: 'TASK_DEFINITION' });
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
    f.template('demo-agent-fran').hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Image: 'public.ecr.aws/docker/library/node:24-slim' })],
    });
  });

  it('refuses an emulator deploy without a registry image, and a bad context value, naming each', () => {
    expect(() => synthFleet(EXAMPLE_CONFIG, { emulator: 'true', runtimeImage: undefined })).toThrow(/context.runtimeImage: is required with emulator=true/);
    expect(() => synthFleet(EXAMPLE_CONFIG, { logRetentionDays: '8' })).toThrow(/context.logRetentionDays: must be one of/);
  });

  it('refuses what it cannot deploy, with every problem at once', () => {
    const config = {
      ...EXAMPLE_CONFIG,
      agents: { ...EXAMPLE_CONFIG.agents, list: [...EXAMPLE_CONFIG.agents.list, { id: 'eve', heartbeat: { every: '90s' } }] },
      cron: {
        jobs: [
          { id: 'fine', agentId: 'fran', schedule: { kind: 'every' as const, every: '1d' }, payload: { kind: 'systemEvent' as const, text: 'hi' } },
          { id: 'both-days', agentId: 'fran', schedule: { kind: 'cron' as const, expr: '0 9 1 * 1' }, payload: { kind: 'systemEvent' as const, text: 'hi' } },
        ],
      },
    };
    let error: unknown;
    try {
      synthFleet(config);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['agents.list[4].heartbeat.every', 'cron.jobs[1].schedule']);
    expect((error as ConfigError).issues[0]!.message).toMatch(/whole minutes/);
    expect((error as ConfigError).issues[1]!.message).toMatch(/cannot restrict both day-of-month and day-of-week/);
  });
});
