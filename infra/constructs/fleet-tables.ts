// The control plane's DynamoDB tables, named as shared/config/names.ts says: each keyed
// by the string `pk` and expiring items through the `expiresAt` TTL attribute.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableNames } from '../../shared/config/names.ts';

export type TableRole = keyof ReturnType<typeof tableNames>;

export class FleetTables extends Construct {
  readonly tables: Record<TableRole, dynamodb.Table>;

  constructor(scope: Construct, id: string, props: { fleet: string }) {
    super(scope, id);
    const names = tableNames(props.fleet);
    const table = (construct: string, tableName: string) =>
      new dynamodb.Table(this, construct, {
        tableName,
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
        timeToLiveAttribute: 'expiresAt',
        // Pay per request: an idle fleet costs nothing here.
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        // Control-plane state is rebuilt by use (sessions are recorded again on the next
        // message); it need not outlive the fleet.
        removalPolicy: RemovalPolicy.DESTROY,
      });
    this.tables = {
      sessions: table('Sessions', names.sessions),
      dedupe: table('Dedupe', names.dedupe),
      deliveries: table('Deliveries', names.deliveries),
      registry: table('Registry', names.registry),
      // Its own table rather than a key prefix: one item per inbound message, kept two weeks,
      // read by the outbox alone; in the registry it would swell the pairing scans, and only
      // the functions that admit or answer messages may see whom each came from.
      origins: table('Origins', names.origins),
    };
  }
}
