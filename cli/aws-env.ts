// AWS client settings for the CLI, from its environment: AWS_REGION (default us-east-1),
// AWS_ENDPOINT_URL for an emulator, and credentials from the environment when given there
// (otherwise the SDK's usual chain: profiles, SSO, instance roles).
import type { CliIO } from './command.ts';

export interface AwsSettings {
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function awsSettings(io: CliIO): AwsSettings {
  const env = io.env;
  return {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(env.AWS_ENDPOINT_URL ? { endpoint: env.AWS_ENDPOINT_URL } : {}),
    ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: env.AWS_ACCESS_KEY_ID,
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
  };
}
