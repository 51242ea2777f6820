/** Expiry notices (key table): each written once per key, expiry and notice, with its audit record. */
import type { AuditRecord } from '../domain/audit-events';
import type { KeyItem } from '../domain/model';
import type { OperationsOf } from '../contract/store-operations';
import { Transactions, type StoreTables } from './transactions';
import { KEY } from './entities/key';

export class ExpiryNoticeStore {
  private readonly transactions: Transactions;

  constructor(tables: StoreTables) {
    this.transactions = new Transactions(tables);
    this.tables = tables;
  }

  private readonly tables: StoreTables;

  /**
   * `recordExpiryNotice`: notes `tag` on the key, if it is still live with
   * this expiry and has no such note, with the audit record; false when it
   * was written before or the key changed.
   */
  async recordNotice(key: Pick<KeyItem, 'id' | 'expires_at'>, tag: string, audit: AuditRecord): Promise<boolean> {
    return this.note(key.id, tag, audit, 'expires_at = :at', { ':at': key.expires_at });
  }

  /**
   * `recordUnusedNotice`: notes `tag` (the warning of a team's unused-key
   * policy, for one last use) on the key if it is still live and enabled and
   * has no such note, with the audit record; false otherwise.
   */
  async recordUnusedNotice(keyId: string, tag: string, audit: AuditRecord): Promise<boolean> {
    return this.note(keyId, tag, audit, 'is_active = :yes', { ':yes': true });
  }

  /** `tag` added to the key's notices, if it is live, meets `condition` and has no such note, with the audit record, in one transaction. */
  private async note(keyId: string, tag: string, audit: AuditRecord, condition: string, values: Record<string, unknown>): Promise<boolean> {
    const outcome = await this.transactions.transact([
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: KEY.key(keyId),
          UpdateExpression: 'SET expiry_notices = list_append(if_not_exists(expiry_notices, :none), :tag)',
          ConditionExpression: `#state = :active AND ${condition} AND NOT contains(expiry_notices, :tagValue)`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':none': [], ':tag': [tag], ':tagValue': tag, ':active': 'active', ...values },
        },
      },
      this.transactions.putAudit(audit),
    ]);
    return outcome.committed;
  }
}

export const EXPIRY_NOTICE_STORE_OPERATIONS = {
  recordNotice: 'recordExpiryNotice',
  recordUnusedNotice: 'recordUnusedNotice',
} as const satisfies OperationsOf<ExpiryNoticeStore>;
