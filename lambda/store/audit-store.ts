/** The audit trail as stored: records of the audit table, by key or by team (its team index). */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreTables } from './transactions';
import type { OperationsOf } from '../contract/store-operations';

export class AuditStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'auditTableName'>) {}

  /**
   * `readAuditTrail`: one page of audit records, newest first, of a key
   * (audit table, strongly consistent) or of a team (its team index);
   * `readAuditChain`: a team's chained records in seq order (its chain index).
   */
  async auditPage(query: {
    readonly index?: string;
    readonly attribute: 'pk' | 'gsi1pk' | 'gsi2pk';
    /** Oldest first (a chain, in seq order); default newest first. */
    readonly forward?: boolean;
    readonly value: string;
    readonly startAfter?: Readonly<Record<string, string>>;
    readonly limit: number;
  }): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
    // One more than asked: whether a next page exists is known without an empty last page.
    const page = await this.tables.db.send(
      new QueryCommand({
        TableName: this.tables.auditTableName,
        IndexName: query.index,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': query.attribute },
        ExpressionAttributeValues: { ':p': query.value },
        ScanIndexForward: query.forward ?? false,
        Limit: query.limit + 1,
        ExclusiveStartKey: query.startAfter,
        ConsistentRead: query.index === undefined,
      }),
    );
    const items = page.Items ?? [];
    return { items: items.slice(0, query.limit), more: items.length > query.limit };
  }
}

/** Each public method of AuditStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const AUDIT_STORE_OPERATIONS = {
  auditPage: ['readAuditTrail', 'readAuditChain'],
} as const satisfies OperationsOf<AuditStore>;
