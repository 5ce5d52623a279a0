// AWS SDK clients, one builder per service, so a bundle holds only the clients its code
// builds (esbuild drops the rest). SQS's and the Scheduler's are built beside their port
// groups (sqs-ports.ts, eventbridge-cron-scheduler.ts): a bundle that loads those groups on
// first use must not reach their clients from here. The SDK itself honours AWS_ENDPOINT_URL (and
// AWS_ENDPOINT_URL_<SERVICE>), which is how tests and local users point it at an emulator.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface AwsClientConfig {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Every client retries a throttled or failed call twice before its caller hears of it. */
export const clientSettings = (config: AwsClientConfig) => ({ ...config, maxAttempts: 3 });

/** DynamoDB with plain JavaScript values; an undefined field is left out of the item. */
export const dynamoDocumentClient = (config: AwsClientConfig = {}) =>
  DynamoDBDocumentClient.from(new DynamoDBClient(clientSettings(config)), { marshallOptions: { removeUndefinedValues: true } });

export const secretsManagerClient = (config: AwsClientConfig = {}) => new SecretsManagerClient(clientSettings(config));

export const ecsClient = (config: AwsClientConfig = {}) => new ECSClient(clientSettings(config));
