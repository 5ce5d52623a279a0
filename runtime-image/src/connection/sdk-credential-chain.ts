// The AWS SDK's default credential chain as the runtime bundle has it: runtime-image/build.mjs
// puts this module in place of @aws-sdk/credential-provider-node for every importer but this
// one, so every SDK client in the runtime — ours, and pi-ai's Bedrock client, which takes no
// credentials of ours — asks here. Once the runtime has taken the task role's credentials
// settings out of its environment (task-credentials.ts), they answer where the SDK's chain would
// have read them: after keys in the environment, as in the SDK's own order, and instead of the
// container endpoint it can no longer find. Until then, and where there are none, the SDK's chain.
import { credentialsTreatedAsExpired, credentialsWillNeedRefresh, defaultProvider as sdkDefaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

export { credentialsTreatedAsExpired, credentialsWillNeedRefresh };

let taskCredentials: AwsCredentialIdentityProvider | undefined;

/** What every SDK client of the bundle asks for its credentials. */
export const defaultProvider: typeof sdkDefaultProvider = (init) =>
  taskCredentials && !(process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY) ? taskCredentials : sdkDefaultProvider(init);

/** From now on, the task role's credentials (undefined: none again). */
export function setTaskCredentials(provider: AwsCredentialIdentityProvider | undefined): void {
  taskCredentials = provider;
}
