/**
 * What every transactional write of the stores shares: the tables, the
 * outcome of a transaction, and the items several writes put in one (the
 * audit record, a dropped value lookup, an idempotent answer, a surviving
 * manager's check).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE } from '../contract/tables';
import type { AuditRecord } from '../domain/audit-events';
import type { KeyItem } from '../domain/model';
import { epochSeconds } from '../platform/clock';
import type { IdempotencyRecord } from '../domain/model';
import { ApiError, ErrorCode } from '../contract/errors';
import { linkedItems, lostOnlyTheHead } from './audit-links';
import { KEY } from './entities/key';
import { VALUE_LOOKUP } from './entities/value-lookup';

/** The tables the stores read and write. */
export interface StoreTables {
  readonly db: DynamoDBDocumentClient;
  readonly keyTableName: string;
  readonly auditTableName: string;
}

/** A write that lost a race: its transaction was cancelled; `reasons` by item position. */
export type WriteOutcome = { readonly committed: true } | { readonly committed: false; readonly reasons: readonly string[] };

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Condition of every item written fresh: nothing may exist under its key. */
export const ABSENT = 'attribute_not_exists(pk)';

/** A manager key that must still be live, active and a manager in its environment when a change commits. */
export type Survivor = Pick<KeyItem, 'id' | 'environment'>;

/** How many times a transaction cancelled only by a conflict is sent, and the longest first pause between (ms, growing with each attempt). */
const CONFLICT_ATTEMPTS = 4;
const CONFLICT_PAUSE_MS = 20;
/**
 * How many times a change is linked on its team's chain head and sent when
 * other changes of the team keep linking first (each waits a random pause
 * up to CONFLICT_PAUSE_MS times its attempt): 20 changes of one team at once
 * all commit; the team's write throttle keeps more from arriving at once.
 */
const CHAIN_ATTEMPTS = 40;

export class Transactions {
  constructor(private readonly tables: StoreTables) {}

  /** The audit records' Puts this instance built (putAudit): the items linked into a chain. */
  private readonly auditPuts = new WeakSet<TransactItem>();
  private readonly isAuditPut = (item: TransactItem) => this.auditPuts.has(item);

  /**
   * `items`, then the surviving manager's check (if any) and the audit
   * record, in one transaction; `survivorLost` when that check failed.
   */
  async transactGuarded(items: TransactItem[], survivor: Survivor | undefined, audit: AuditRecord): Promise<WriteOutcome & { survivorLost?: boolean }> {
    const survivorAt = items.length;
    const all = [...items, ...(survivor ? [this.survivorCheck(survivor)] : []), this.putAudit(audit)];
    const outcome = await this.transact(all);
    if (outcome.committed) return outcome;
    return { ...outcome, survivorLost: survivor !== undefined && outcome.reasons[survivorAt] === 'ConditionalCheckFailed' };
  }

  /** The manager that must still be live, active and in the same environment when a change commits. */
  survivorCheck(survivor: Survivor): TransactItem {
    return {
      ConditionCheck: {
        TableName: this.tables.keyTableName,
        Key: KEY.key(survivor.id),
        ConditionExpression: '#state = :active AND is_manager = :true AND is_active = :true AND environment = :environment',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':active': 'active', ':true': true, ':environment': survivor.environment },
      },
    };
  }

  /** An idempotent answer's Put: only where none is stored, or the stored one has expired. */
  putIdempotency(record: IdempotencyRecord): TransactItem {
    return {
      Put: {
        TableName: this.tables.keyTableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': epochSeconds(new Date(Date.parse(record.created_at))) },
      },
    };
  }

  /** The audit record's Put: write-once under its event id. */
  putAudit(audit: AuditRecord): TransactItem {
    const item = { Put: { TableName: this.tables.auditTableName, Item: audit, ConditionExpression: ABSENT } };
    this.auditPuts.add(item);
    return item;
  }

  /** A value lookup's Delete. */
  dropLookup(valueHash: string): TransactItem {
    return { Delete: { TableName: this.tables.keyTableName, Key: VALUE_LOOKUP.key(valueHash) } };
  }

  /**
   * One change, sent as one TransactWriteItems: a cancellation (a condition
   * failed) is an outcome, anything else throws. Audit records are linked
   * into their team's hash chain first (store/audit-links.ts): when only the
   * chain's head was lost to another change of the team, the change is
   * linked on the new head and sent again (a 503 after CHAIN_ATTEMPTS). The
   * outcome's reasons are those of `items`, by position.
   */
  async transact(items: TransactItem[]): Promise<WriteOutcome> {
    if (!items.some(this.isAuditPut)) return this.send(items);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.send(await linkedItems(this.tables, items, this.isAuditPut));
      if (outcome.committed) return outcome;
      if (!lostOnlyTheHead(outcome.reasons, items.length)) return { committed: false, reasons: outcome.reasons.slice(0, items.length) };
      if (attempt >= CHAIN_ATTEMPTS)
        throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'Too many changes of this team at once: the change was not made. Retry it.');
      await pause(attempt);
    }
  }

  /**
   * One TransactWriteItems. A cancellation only for a conflict with another
   * transaction on one of its items (two keys joining one identity at once)
   * wrote nothing and checked nothing that failed: it is sent again, up to
   * CONFLICT_ATTEMPTS times, after a short random pause.
   */
  private async send(items: TransactItem[]): Promise<WriteOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.tables.db.send(new TransactWriteCommand({ TransactItems: items }));
        return { committed: true };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
        const onlyConflict = reasons.includes('TransactionConflict') && reasons.every((reason) => reason === 'TransactionConflict' || reason === 'None');
        if (!onlyConflict || attempt >= CONFLICT_ATTEMPTS) return { committed: false, reasons };
        await pause(attempt);
      }
    }
  }
}

/** A short random pause, longer with each attempt. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * CONFLICT_PAUSE_MS * Math.min(attempt, 10)));
