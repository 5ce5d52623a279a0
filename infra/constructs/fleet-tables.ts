// The control plane's DynamoDB tables, named as shared/config/names.ts says: each keyed
// by the string `pk` and expiring items through the `expiresAt` TTL attribute. The ones that
// hold what a user would miss (infra/retained-resources.ts) survive a teardown and refuse a
// delete; the others hold only expiring keys and go with the stack.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableNames } from '../../shared/config/names.ts';
import { RETAINED_TABLES } from '../retained-resources.ts';

export type TableRole = keyof ReturnType<typeof tableNames>;

export class FleetTables extends Construct {
  readonly tables: Record<TableRole, dynamodb.Table>;

  constructor(scope: Construct, id: string, props: { fleet: string }) {
    super(scope, id);
    const names = tableNames(props.fleet);
    const table = (construct: string, role: TableRole) => {
      const tableName = names[role];
      const retained = (RETAINED_TABLES as readonly TableRole[]).includes(role);
      return new dynamodb.Table(this, construct, {
        tableName,
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
        timeToLiveAttribute: 'expiresAt',
        // Pay per request: an idle fleet costs nothing here.
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        // Approved pairings and agent records (registry), sessions and their last chats: kept
        // by a teardown, and a delete is refused until an operator turns protection off.
        // Dedupe keys (48 h), delivery claims and origins (15 days) matter only while their
        // queues exist, which a teardown deletes, so those tables go with the stack.
        removalPolicy: retained ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
        deletionProtection: retained,
      });
    };
    this.tables = {
      sessions: table('Sessions', 'sessions'),
      dedupe: table('Dedupe', 'dedupe'),
      deliveries: table('Deliveries', 'deliveries'),
      registry: table('Registry', 'registry'),
      // Its own table rather than a key prefix: one item per inbound message, kept two weeks,
      // read by the outbox alone; in the registry it would swell the pairing scans, and only
      // the functions that admit or answer messages may see whom each came from.
      origins: table('Origins', 'origins'),
      // Budgets (#31): its own table, so an agent's task role can be given its own ledger items
      // (dynamodb:LeadingKeys `<agent>#…`) and nothing of any other table; the control plane's
      // counts sit beside them under keys no agent's role matches.
      spend: table('Spend', 'spend'),
    };
  }
}
