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
import { sourceBucketOf } from '../domain/ip-allowlist';
import type { GuessCounterStore } from '../store/guess-counter-store';
import { withEarlyWrite } from './early-write';
import { checkKey, failureOf, presentedHash, VerifyFailure, type VerifyServices, type VerifyRequest, type VerifyResult } from './verify';
import { GUESS_COUNTER } from '../store/entities/guess-counter';

export const GUESS_WINDOW_MS = 60_000;

export type GuardedVerification = { kind: 'answer'; result: VerifyResult } | { kind: 'too-many-guesses'; retryAfterSeconds: number };

/**
 * `verifyKey` behind the per-source guess limit: the verify endpoint's one
 * service call.
 *
 * Latency: when this process has read the value's lookup before
 * (`SeenLookups`) and that lookup says the value is valid, the recording
 * write is sent at the same time as the read instead of after it, so a
 * verification waits for one round trip instead of two. The read still
 * decides the answer. When it contradicts the prediction (the key changed,
 * the source is over its guess limit, or the read failed), the early write
 * is taken back (early-write.ts) before anything is answered, and
 * the verification goes on from the read as if nothing had been sent.
 */
export async function verifyWithGuessLimit(
  deps: VerifyServices & { readonly guesses: GuessCounterStore; readonly settings: { guessLimitPerMinute: number } },
  request: VerifyRequest,
): Promise<GuardedVerification> {
  const limit = deps.settings.guessLimitPerMinute;
  const now = deps.clock.now();
  const minute = Math.floor(now.getTime() / GUESS_WINDOW_MS);
  const windowEnd = (minute + 1) * GUESS_WINDOW_MS;
  const tooMany: GuardedVerification = {
    kind: 'too-many-guesses',
    retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
  };
  const counterKey = GUESS_COUNTER.key(sourceBucketOf(request.sourceIp), minute);

  const counterName = `${counterKey.pk}|${counterKey.sk}`;
  const overLimit = deps.memory.overGuessLimit;
  const valueHash = presentedHash(deps, request.value);
  return withEarlyWrite(
    deps,
    request,
    // A source this process has seen over its limit this minute gets no write ahead: it would only be taken back.
    { at: now, valueHash, skip: overLimit.has(counterName) },
    () => checkKey(deps, request, { companionKeys: [counterKey], valueHash }),
    async ({ check, admit }): Promise<GuardedVerification> => {
      const failures = Number(check.companions?.find((item) => item.pk === counterKey.pk && item.sk === counterKey.sk)?.n ?? 0);
      if (check.wellFormed && failures >= limit) {
        overLimit.set(counterName, true);
        return tooMany;
      }
      if (check.valid) return { kind: 'answer', result: await admit(check.checked) };
      if (check.wellFormed && check.code === VerifyFailure.NOT_FOUND) {
        const counted = await deps.guesses.countGuess(counterKey, limit, new Date(windowEnd + GUESS_WINDOW_MS));
        if (!counted) {
          overLimit.set(counterName, true);
          return tooMany;
        }
      }
      return { kind: 'answer', result: failureOf(check) };
    },
  );
}
