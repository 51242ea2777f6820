/**
 * Idempotent creates and regenerates (Stripe's convention): a request with
 * an `Idempotency-Key` header (1-255 printable ASCII characters) is
 * answered once. Its answer is stored in the same transaction as the change
 * it made, under the calling key and the key's SHA-256, for 24 hours, with
 * the issued value replaced by null (a value is never stored; whoever lost
 * it rolls the key). The same key with the same request replays that answer
 * with `Idempotent-Replayed: true`; with a different request it is 422
 * IDEMPOTENCY_KEY_REUSED. Of two concurrent requests with the same key, the
 * transaction of one commits and the other replays its answer.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ErrorCode } from '../contract/errors';
import { jsonResponse } from '../contract/response';
import type { VerifiedKey } from '../verification/verify';
import { IdempotencyRace, type IdempotencyClaim } from '../store/idempotency-record';
import type { Clock } from '../platform/clock';
import type { IdempotencyStore } from '../store/idempotency-record';
import type { ManagementEvent } from './event';
import { header } from './headers';
import { IDEMPOTENCY } from '../store/entities/idempotency';

export { IdempotencyRace, type IdempotencyClaim };

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Canonical JSON (sorted object keys), so a re-ordered body is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The claim of this request, or undefined without the header; 400 for a
 * malformed key. `fingerprinted`: what the request is recognised by, when
 * the input itself must not be (a body holding a key value gives it with the
 * value's hash in its place).
 */
export function idempotencyClaimOf(
  event: ManagementEvent<unknown>,
  caller: VerifiedKey,
  route: string,
  fingerprinted: unknown = event.input,
): IdempotencyClaim | undefined {
  const key = header(event, IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!VALID_KEY.test(key)) {
    throw new ApiError(ErrorCode.VALIDATION_FAILED, 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', [
      { field: IDEMPOTENCY_HEADER, issue: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  return {
    itemKey: IDEMPOTENCY.key(caller.id, sha256(key)),
    fingerprint: sha256(`${route}\n${canonical(fingerprinted)}`),
  };
}

/** What an idempotent request reads: its stored answer, by the clock. */
export interface IdempotencyPorts {
  readonly idempotency: IdempotencyStore;
  readonly clock: Clock;
}

/** The stored answer replayed, 422 when the key was used for another request, or undefined when there is none. */
export async function replayed(services: IdempotencyPorts, claim: IdempotencyClaim, requestId: string): Promise<APIGatewayProxyResult | undefined> {
  const record = await services.idempotency.getIdempotencyRecord(claim.itemKey, services.clock.now());
  if (!record) return undefined;
  if (record.fingerprint !== claim.fingerprint) {
    throw new ApiError(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      'This Idempotency-Key was already used for a different request in the last 24 hours; use a new key for a new request.',
      [{ field: IDEMPOTENCY_HEADER, issue: 'already used for a different request' }],
    );
  }
  return jsonResponse(record.status, JSON.parse(record.body), requestId, { 'Idempotent-Replayed': 'true' });
}

/**
 * Runs `change` under the claim: a stored answer is replayed instead; a
 * twin that committed first while this one ran is replayed too.
 */
export async function underIdempotency(
  services: IdempotencyPorts,
  claim: IdempotencyClaim | undefined,
  requestId: string,
  change: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  if (!claim) return change();
  const earlier = await replayed(services, claim, requestId);
  if (earlier) return earlier;
  try {
    return await change();
  } catch (error) {
    if (!(error instanceof IdempotencyRace)) throw error;
    const twin = await replayed(services, claim, requestId);
    if (twin) return twin;
    throw new ApiError(ErrorCode.CONFLICT, 'A request with this Idempotency-Key is being processed; retry shortly.');
  }
}
