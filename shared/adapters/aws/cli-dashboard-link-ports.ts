// The CLI's ports for `dashboard --aws`, grouped as control-ports.ts groups the control plane's,
// so that no file under cli/ sends an AWS command itself: the stack's outputs and the
// dashboard's secret, from the settings the CLI read from its environment (cli/aws-env.ts). One
// file a group (cli-*-ports.ts), so a command loads only its own adapters.
import { CloudFormationStacks, cloudFormationClient } from './cloudformation-stacks.ts';
import type { AwsClientConfig } from './clients.ts';
import { SecretsManagerSecrets } from './secrets-manager-secrets.ts';

/** `dashboard --aws`: the control plane stack's outputs (the dashboard's Function URL) and the dashboard's secret. */
export function dashboardLinkPorts(config: AwsClientConfig) {
  const stacks = new CloudFormationStacks(cloudFormationClient(config));
  return {
    /** The stack's outputs, or undefined where it is not deployed. */
    outputs: async (stackName: string) => (await stacks.get(stackName))?.outputs,
    secrets: SecretsManagerSecrets.for(config),
  };
}
