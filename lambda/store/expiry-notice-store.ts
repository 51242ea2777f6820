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
    const outcome = await this.transactions.transact([
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: KEY.key(key.id),
          UpdateExpression: 'SET expiry_notices = list_append(if_not_exists(expiry_notices, :none), :tag)',
          ConditionExpression: '#state = :active AND expires_at = :at AND NOT contains(expiry_notices, :tagValue)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':none': [], ':tag': [tag], ':tagValue': tag, ':active': 'active', ':at': key.expires_at },
        },
      },
      this.transactions.putAudit(audit),
    ]);
    return outcome.committed;
  }

  /**
   * `recordUnusedNotice`: notes `tag` (the warning of a team's unused-key
   * policy, for one last use) on the key if it is still live and enabled and
   * has no such note, with the audit record; false otherwise.
   */
  async recordUnusedNotice(keyId: string, tag: string, audit: AuditRecord): Promise<boolean> {
    const outcome = await this.transactions.transact([
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: KEY.key(keyId),
          UpdateExpression: 'SET expiry_notices = list_append(if_not_exists(expiry_notices, :none), :tag)',
          ConditionExpression: '#state = :active AND is_active = :yes AND NOT contains(expiry_notices, :tagValue)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':none': [], ':tag': [tag], ':tagValue': tag, ':active': 'active', ':yes': true },
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
