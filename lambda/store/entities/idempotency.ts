/**
 * An idempotent answer: `IDEMPOTENCY#<caller key id>#<sha256 of the
 * Idempotency-Key>` / `IDEMPOTENCY`, written in the transaction of the change
 * it answers, removed by TTL after 24 hours.
 */
import type { IdempotencyRecord } from '../../domain/model';
import { NUMBER, STRING, defineEntity, type EntityAccess } from './entity';

export const IDEMPOTENCY = /* @__PURE__ */ defineEntity<IdempotencyRecord>()({
  name: 'idempotency',
  table: 'key',
  key: (callerKeyId: string, idempotencyKeyHash: string) => ({ pk: `IDEMPOTENCY#${callerKeyId}#${idempotencyKeyHash}`, sk: 'IDEMPOTENCY' }),
  attributes: { pk: STRING, sk: STRING, entity: ['idempotency'], fingerprint: STRING, status: NUMBER, body: STRING, created_at: STRING, ttl: NUMBER },
});

/** The access patterns on idempotency records: read before, written with the change. */
export const IDEMPOTENCY_ACCESS = {
  readIdempotencyRecord: ['GetItem'],
  createKey: ['PutItem'],
  rotateValue: ['PutItem'],
  recordLeak: ['PutItem'],
  createWebhookEndpoint: ['PutItem'],
  adjustCredits: ['PutItem'],
} as const satisfies EntityAccess;
