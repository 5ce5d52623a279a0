// AWS SDK clients, built once per process. The SDK itself honours AWS_ENDPOINT_URL (and
// AWS_ENDPOINT_URL_<SERVICE>), which is how tests and local users point it at an emulator.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface AwsClientConfig {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface AwsClients {
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  secrets: SecretsManagerClient;
  ecs: ECSClient;
}

export function createAwsClients(config: AwsClientConfig = {}): AwsClients {
  const common = { ...config, maxAttempts: 3 };
  return {
    sqs: new SQSClient(common),
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient(common), { marshallOptions: { removeUndefinedValues: true } }),
    secrets: new SecretsManagerClient(common),
    ecs: new ECSClient(common),
  };
}
