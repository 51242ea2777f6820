import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { AttributeType, TableDefinition } from '../lambda/contract/tables';
import { removalPolicyFor } from './removal-policy';

/** Options every table of the service shares, beyond its schema. */
export interface ServiceTableProps {
  /** Engine-neutral schema from `lambda/contract/tables.ts`. */
  readonly definition: TableDefinition;
  /** Production: deletion protection on and the table retained on stack deletion. Default: false. */
  readonly production?: boolean;
}

const ATTRIBUTE_TYPES: Record<AttributeType, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
};

const STREAM_VIEW_TYPES = {
  NEW_IMAGE: dynamodb.StreamViewType.NEW_IMAGE,
} as const;

/**
 * Builds an on-demand table from the shared schema, so the deployed table and
 * the local runtime's table cannot differ in keys, indexes, TTL or stream.
 * Point-in-time recovery is on in every stage (cheap, and restores are the
 * only undo for a bad write); deletion protection and retention are for
 * production only, so a dev stack can be torn down.
 */
export function createServiceTable(scope: Construct, id: string, props: ServiceTableProps): dynamodb.Table {
  const { definition } = props;
  const production = props.production ?? false;
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: definition.partitionKey.name, type: ATTRIBUTE_TYPES[definition.partitionKey.type] },
    sortKey: { name: definition.sortKey.name, type: ATTRIBUTE_TYPES[definition.sortKey.type] },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: definition.ttlAttribute,
    stream: definition.stream === undefined ? undefined : STREAM_VIEW_TYPES[definition.stream],
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // Encrypted at rest with the AWS-owned key: no key policy to manage, no KMS grants on every function.
    encryption: dynamodb.TableEncryption.DEFAULT,
    deletionProtection: production,
    removalPolicy: removalPolicyFor(production),
  });
  for (const index of definition.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: { name: index.partitionKey.name, type: ATTRIBUTE_TYPES[index.partitionKey.type] },
      sortKey: { name: index.sortKey.name, type: ATTRIBUTE_TYPES[index.sortKey.type] },
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }
  return table;
}
