// AWS SDK clients, one builder per service, so a bundle holds only the clients its code
// builds (esbuild drops the rest). The SDK itself honours AWS_ENDPOINT_URL (and
// AWS_ENDPOINT_URL_<SERVICE>), which is how tests and local users point it at an emulator.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface AwsClientConfig {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Every client retries a throttled or failed call twice before its caller hears of it. */
export const clientSettings = (config: AwsClientConfig) => ({ ...config, maxAttempts: 3 });

export const sqsClient = (config: AwsClientConfig = {}) => new SQSClient(clientSettings(config));

/** DynamoDB with plain JavaScript values; an undefined field is left out of the item. */
export const dynamoDocumentClient = (config: AwsClientConfig = {}) =>
  DynamoDBDocumentClient.from(new DynamoDBClient(clientSettings(config)), { marshallOptions: { removeUndefinedValues: true } });

export const secretsManagerClient = (config: AwsClientConfig = {}) => new SecretsManagerClient(clientSettings(config));

export const ecsClient = (config: AwsClientConfig = {}) => new ECSClient(clientSettings(config));

export interface AwsClients {
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  secrets: SecretsManagerClient;
  ecs: ECSClient;
}

/** The four clients most callers share (tests, the CLI's fleet view). */
export function createAwsClients(config: AwsClientConfig = {}): AwsClients {
  return { sqs: sqsClient(config), dynamo: dynamoDocumentClient(config), secrets: secretsManagerClient(config), ecs: ecsClient(config) };
}
