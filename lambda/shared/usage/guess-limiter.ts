/**
 * The verify endpoint's defence against guessing: each source (IPv4 address
 * or IPv6 /64) may make at most `VERIFY_GUESS_LIMIT_PER_MINUTE` (default 30)
 * verifications of well-formed but unknown values per clock minute. Past
 * that, every verification from the source, valid or not, is refused with
 * 429 until the minute ends, so a guesser learns nothing more.
 *
 * Cost: the counter item is read in the same BatchGetItem as the value
 * lookup, so a valid verification still costs one read and one write. Only
 * unknown values are counted (one conditional UpdateItem each): valid keys,
 * keys refused for their own reasons (expired, revoked, IP, origin, scope,
 * rate limit) and malformed values (refused before any I/O; they cannot
 * match anything) do not count.
 *
 * The count is exact under concurrency: an unknown value is answered only
 * when its conditional increment (`n < limit`) succeeds. A valid value is
 * answered when the counter read with it was below the limit.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_GUESS_LIMIT_PER_MINUTE } from '../../contract/defaults';
import { epochSeconds } from '../platform/clock';
import { sourceBucketOf } from '../keys/ip-allowlist';
import { IP_RATE_ENTITY, TTL_ATTRIBUTE, keyTableKeys } from '../../contract/tables';
import { checkKey, failureOf, useCheckedKey, VerifyFailure, type VerifyDeps, type VerifyRequest, type VerifyResult } from '../auth/verify';

export const GUESS_WINDOW_MS = 60_000;

/** Unknown values a source may verify per minute (`VERIFY_GUESS_LIMIT_PER_MINUTE`). */
export function guessLimitPerMinute(): number {
  const raw = process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
  if (raw === undefined || raw === '') return DEFAULT_GUESS_LIMIT_PER_MINUTE;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`Environment variable VERIFY_GUESS_LIMIT_PER_MINUTE must be a positive integer, got "${raw}"`);
  }
  return value;
}

export type GuardedVerification =
  | { kind: 'answer'; result: VerifyResult }
  | { kind: 'too-many-guesses'; retryAfterSeconds: number };

/**
 * `verifyKey` behind the per-source guess limit: the verify endpoint's one
 * service call.
 */
export async function verifyWithGuessLimit(
  deps: VerifyDeps,
  request: VerifyRequest,
  limit: number = guessLimitPerMinute(),
): Promise<GuardedVerification> {
  const now = deps.clock.now();
  const minute = Math.floor(now.getTime() / GUESS_WINDOW_MS);
  const windowEnd = (minute + 1) * GUESS_WINDOW_MS;
  const tooMany: GuardedVerification = {
    kind: 'too-many-guesses',
    retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
  };
  const counterKey = keyTableKeys.ipRateCounter(sourceBucketOf(request.sourceIp), minute);

  const check = await checkKey(deps, request, { companionKey: counterKey });
  const failures = Number(check.companion?.n ?? 0);
  if (check.wellFormed && failures >= limit) return tooMany;
  if (check.valid) return { kind: 'answer', result: await useCheckedKey(deps, check.checked) };
  if (check.wellFormed && check.code === VerifyFailure.NOT_FOUND) {
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.keyTableName,
          Key: counterKey,
          UpdateExpression: 'SET entity = :entity, #ttl = :ttl ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':entity': IP_RATE_ENTITY,
            ':ttl': epochSeconds(new Date(windowEnd + GUESS_WINDOW_MS)),
            ':one': 1,
            ':limit': limit,
          },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return tooMany;
      throw error;
    }
  }
  return { kind: 'answer', result: failureOf(check) };
}
