// The control plane's ports on AWS, grouped by the SDK client they share: a Lambda's handler
// file names the groups its core uses, so its bundle holds only those clients, and each
// client is built once, when the first of its ports is.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableNames } from '../../config/names.ts';
import type { ControlPlane, PortFactories } from '../../control/control-plane.ts';
import { CachedSecretStore } from '../cached-secret-store.ts';
import { dynamoDocumentClient, ecsClient, secretsManagerClient, type AwsClientConfig } from './clients.ts';
import { DynamoAgentMetrics } from './dynamo-agent-metrics.ts';
import { DynamoAlertRates } from './dynamo-alert-rates.ts';
import { DynamoAgentRegistry } from './dynamo-agent-registry.ts';
import { DynamoInboundOrigins } from './dynamo-inbound-origins.ts';
import { DynamoReactionRates } from './dynamo-reaction-rates.ts';
import { DynamoSentMessages } from './dynamo-sent-messages.ts';
import { DynamoPairingStore } from './dynamo-pairing-store.ts';
import { DynamoRelayRates } from './dynamo-relay-rates.ts';
import { DynamoSpendCounts } from './dynamo-spend.ts';
import { DynamoWorkspaceSyncLog } from './dynamo-workspace-sync-log.ts';
import { DynamoDeliveryLedger, DynamoInboundDedupe, DynamoSessionRegistry } from './dynamo-tables.ts';
import { EcsAgentCompute } from './ecs-agent-compute.ts';
import { LambdaAgentCompute } from './lambda-agent-compute.ts';
import { SecretsManagerStore } from './secrets-manager-store.ts';
import { SignedLambdaInvoker } from './signed-lambda-invoker.ts';
import { SignedS3MediaStore } from './signed-s3-media-store.ts';

/** One DynamoDB client per process and settings, whichever of the groups below builds it first. */
const dynamoClients = new Map<string, DynamoDBDocumentClient>();
function sharedDynamo(config: AwsClientConfig): DynamoDBDocumentClient {
  const key = JSON.stringify(config);
  let client = dynamoClients.get(key);
  if (!client) dynamoClients.set(key, (client = dynamoDocumentClient(config)));
  return client;
}
const tables = (cp: ControlPlane) => tableNames(cp.config.fleet);

/** The control plane's tables (shared/config/names.ts) that most cores use. */
export function dynamoPorts(config: AwsClientConfig = {}): PortFactories {
  const dynamo = () => sharedDynamo(config);
  return {
    dedupe: (cp) => new DynamoInboundDedupe(dynamo(), tables(cp).dedupe, cp.clock.now),
    sessions: (cp) => new DynamoSessionRegistry(dynamo(), tables(cp).sessions),
    origins: (cp) => new DynamoInboundOrigins(dynamo(), tables(cp).origins, cp.clock.now),
    ledger: (cp) => new DynamoDeliveryLedger(dynamo(), tables(cp).deliveries),
    registry: (cp) => new DynamoAgentRegistry(dynamo(), tables(cp).registry),
    metrics: (cp) => new DynamoAgentMetrics(dynamo(), tables(cp).registry, cp.clock.now),
    relayRates: (cp) => new DynamoRelayRates(dynamo(), tables(cp).origins),
    spendCounts: (cp) => new DynamoSpendCounts(dynamo(), tables(cp).spend),
    sentMessages: (cp) => new DynamoSentMessages(dynamo(), tables(cp).origins, cp.clock.now),
    reactionRates: (cp) => new DynamoReactionRates(dynamo(), tables(cp).origins),
  };
}

/** Operator alerts' rate counters (λ operator-alerts alone), in the deliveries table beside their claims. */
export function alertPorts(config: AwsClientConfig = {}): PortFactories {
  return { alertRates: (cp) => new DynamoAlertRates(sharedDynamo(config), tables(cp).deliveries) };
}

/** The control plane's secrets in Secrets Manager, each read about once per five minutes. */
export function secretsManagerPorts(config: AwsClientConfig = {}): PortFactories {
  return { secrets: (cp) => new CachedSecretStore(new SecretsManagerStore(secretsManagerClient(config)), cp.clock.now) };
}

/** Asks λ compute, the one holder of ECS power, by asynchronous invocation. */
export function lambdaComputePorts(holder: string, config: AwsClientConfig = {}): PortFactories {
  return { compute: () => new LambdaAgentCompute(new SignedLambdaInvoker(config), holder) };
}

/** Sets agents' ECS services itself: λ compute only (IAM refuses every other deployed function). */
export function ecsComputePorts(config: AwsClientConfig = {}): PortFactories {
  return { compute: (cp) => new EcsAgentCompute(ecsClient(config), cp.config.fleet) };
}

/** Pairing requests (the registry table): the Telegram webhook asks for them, the dashboard approves them. */
export function pairingPorts(config: AwsClientConfig = {}): PortFactories {
  return { pairings: (cp) => new DynamoPairingStore(sharedDynamo(config), tables(cp).registry) };
}

/** Each agent's last workspace push or pull (the registry table): only the dashboard reads it. */
export function workspaceSyncPorts(config: AwsClientConfig = {}): PortFactories {
  return { workspaceSyncLog: (cp) => new DynamoWorkspaceSyncLog(sharedDynamo(config), tables(cp).registry) };
}

/** The media store (#16): signed S3 requests to the fleet's bucket, under <fleet>/. */
export function mediaPorts(bucket: string, config: AwsClientConfig = {}): PortFactories {
  return { media: (cp) => new SignedS3MediaStore({ ...config, bucket, fleet: cp.config.fleet }) };
}
