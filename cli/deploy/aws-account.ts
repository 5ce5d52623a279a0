// What `clawfleet deploy` reads from and writes to the account, beside the CDK CLI: who the
// credentials are, whether the account is bootstrapped, the stacks' states and outputs, the
// names each secret holds (never a value in any message), values put from the operator, and
// the restart of an agent that got values (asked of λ compute).
import { CloudFormationStacks, cloudFormationClient, type StackState } from '../../shared/adapters/aws/cloudformation-stacks.ts';
import { callerIdentity } from '../../shared/adapters/aws/caller-identity.ts';
import { SecretsManagerSecrets } from '../../shared/adapters/aws/secrets-manager-secrets.ts';
import { LambdaAgentCompute } from '../../shared/adapters/aws/lambda-agent-compute.ts';
import { SignedLambdaInvoker } from '../../shared/adapters/aws/signed-lambda-invoker.ts';
import { parseSecretObject } from '../../shared/secrets/secret-values.ts';
import { functionName } from '../../shared/config/names.ts';
import type { AwsSettings } from '../aws-env.ts';
import { awsErrorText } from '../aws-errors.ts';

/** The CDK's default bootstrap stack. */
export const TOOLKIT_STACK = 'CDKToolkit';

/** A secret as far as deploy cares: absent (its stack is not deployed yet), or the names it holds. */
export type SecretState = { exists: false } | { exists: true; names: string[]; unreadable?: string };

/** A stack as deploy reads it. */
export interface StackInfo {
  StackStatus?: string | undefined;
  Outputs?: { OutputKey?: string | undefined; OutputValue?: string | undefined }[] | undefined;
}

/** What deploy needs of the account (the class below on AWS; a test gives its own). */
export interface DeployAccountPort {
  readonly aws: AwsSettings;
  identity(): Promise<{ account: string; arn: string }>;
  stack(name: string): Promise<StackInfo | undefined>;
  outputs(stackName: string): Promise<Record<string, string>>;
  secret(secretId: string): Promise<SecretState>;
  put(secretId: string, values: Record<string, string>): Promise<string[]>;
  restart(agentId: string): Promise<void>;
  values(secretId: string): Promise<Record<string, string>>;
}

export class DeployAccount implements DeployAccountPort {
  private readonly stacks: CloudFormationStacks;
  private readonly sm: SecretsManagerSecrets;

  constructor(
    readonly aws: AwsSettings,
    private readonly fleet: string,
  ) {
    this.stacks = new CloudFormationStacks(cloudFormationClient(aws));
    this.sm = SecretsManagerSecrets.for(aws);
  }

  identity(): Promise<{ account: string; arn: string }> {
    return callerIdentity(this.aws);
  }

  /** The stack, or undefined when there is none (or only a deleted one). */
  async stack(name: string): Promise<StackInfo | undefined> {
    const s = await this.state(name);
    return s && { StackStatus: s.status, Outputs: Object.entries(s.outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })) };
  }

  async outputs(stackName: string): Promise<Record<string, string>> {
    return (await this.state(stackName))?.outputs ?? {};
  }

  private async state(name: string): Promise<StackState | undefined> {
    try {
      return await this.stacks.get(name);
    } catch (err) {
      throw new Error(awsErrorText(`cannot describe stack ${name}`, err, this.aws));
    }
  }

  async secret(secretId: string): Promise<SecretState> {
    try {
      await this.sm.describe(secretId);
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return { exists: false };
      throw new Error(awsErrorText(`cannot describe secret ${secretId}`, err, this.aws));
    }
    try {
      return { exists: true, names: Object.keys(parseSecretObject(secretId, await this.sm.text(secretId))) };
    } catch (err) {
      // Made by its stack without a value: nothing set yet.
      if ((err as Error).name === 'ResourceNotFoundException') return { exists: true, names: [] };
      return {
        exists: true,
        names: [],
        unreadable: (err as Error).name === 'ClawfleetError' ? (err as Error).message : awsErrorText(`cannot read secret ${secretId}`, err, this.aws),
      };
    }
  }

  /** Merges values into a secret its stack made; returns the names it holds afterwards. */
  async put(secretId: string, values: Record<string, string>): Promise<string[]> {
    return (await this.sm.putValues(secretId, values)).names;
  }

  /** Asks λ compute to restart an agent: a waiting runtime starts now; a sleeping agent stays asleep. */
  async restart(agentId: string): Promise<void> {
    await new LambdaAgentCompute(new SignedLambdaInvoker(this.aws), functionName(this.fleet, 'compute')).restart(agentId);
  }

  /** Values of one secret (for the bot tokens the webhook registration needs): never printed. */
  async values(secretId: string): Promise<Record<string, string>> {
    try {
      return parseSecretObject(secretId, await this.sm.text(secretId));
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return {};
      throw new Error(awsErrorText(`cannot read secret ${secretId}`, err, this.aws));
    }
  }
}
