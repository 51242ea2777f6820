/**
 * The stored side of an idempotent request (the HTTP side is
 * http/idempotency.ts): the claim a request makes on its Idempotency-Key,
 * and the record written in the same transaction as the change it made,
 * kept 24 hours, the issued value replaced by null.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../contract/tables';
import type { IdempotencyRecord } from '../domain/model';

export type { IdempotencyRecord };
import { ttlExpired } from '../domain/key-lifetime';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import type { StoreTables } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { IDEMPOTENCY } from './entities/idempotency';

const IDEMPOTENCY_TTL_MS = MS_PER_DAY;

/** A request's claim on an idempotency key: where its answer goes and what request it answers. */
export interface IdempotencyClaim {
  readonly itemKey: ItemKey;
  readonly fingerprint: string;
}

/** Thrown by a write whose idempotency record exists already: a concurrent twin committed first. */
export class IdempotencyRace extends Error {
  override name = 'IdempotencyRace';
}

/** The record to write with the change. */
export function idempotencyRecord(claim: IdempotencyClaim, status: number, body: unknown, at: Date): IdempotencyRecord {
  return {
    ...claim.itemKey,
    entity: 'idempotency',
    fingerprint: claim.fingerprint,
    status,
    body: JSON.stringify(body),
    created_at: at.toISOString(),
    ttl: epochSeconds(new Date(at.getTime() + IDEMPOTENCY_TTL_MS)),
  };
}

export class IdempotencyStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** `readIdempotencyRecord`: a stored answer, unless its 24 hours are over. */
  async getIdempotencyRecord(itemKey: ItemKey, now: Date): Promise<IdempotencyRecord | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: itemKey, ConsistentRead: true }));
    const record = IDEMPOTENCY.read(Item);
    return record && !ttlExpired(record, now) ? record : undefined;
  }
}

/** Each public method of IdempotencyStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const IDEMPOTENCY_STORE_OPERATIONS = {
  getIdempotencyRecord: 'readIdempotencyRecord',
} as const satisfies OperationsOf<IdempotencyStore>;
