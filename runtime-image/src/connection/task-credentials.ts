// The task role's credentials from the settings the runtime took over at start
// (container-credentials.ts), for every SDK client of the process (sdk-credential-chain.ts):
// fetched as the SDK's own container provider fetches them (its retries, the endpoint's host
// checked, the token or token file sent), shared by all clients, and fetched again five
// minutes before they expire. Loaded only when there are such settings (on AWS).
import { fromHttp } from '@aws-sdk/credential-provider-http';
import { credentialsTreatedAsExpired, credentialsWillNeedRefresh, defaultProvider as chainInUse } from '@aws-sdk/credential-provider-node';
import { memoize } from '@smithy/core/config';
import { ClawfleetError } from '../../../shared/errors.ts';
import type { ContainerCredentialSettings } from './container-credentials.ts';
import { defaultProvider as runtimeChain, setTaskCredentials } from './sdk-credential-chain.ts';

export function useContainerCredentials(settings: ContainerCredentialSettings): void {
  // The sources run through tsx keep the SDK's own chain, which reads the environment the
  // runtime just emptied: its clients would find no credentials, so it stops here, saying why.
  if (chainInUse !== runtimeChain) {
    throw new ClawfleetError(
      'CONFIG_INVALID',
      "the task credentials were taken over, but this runtime's AWS SDK clients do not ask the runtime's credential chain: run the runtime bundle (runtime-image/build.mjs), not its sources",
    );
  }
  setTaskCredentials(
    memoize(
      fromHttp({
        awsContainerCredentialsRelativeUri: settings.relativeUri,
        awsContainerCredentialsFullUri: settings.fullUri,
        awsContainerAuthorizationToken: settings.token,
        awsContainerAuthorizationTokenFile: settings.tokenFile,
      }),
      credentialsTreatedAsExpired,
      credentialsWillNeedRefresh,
    ),
  );
}
