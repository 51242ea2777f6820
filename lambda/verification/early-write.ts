/**
 * The recording write sent with the read: the one door, used by the verify
 * endpoint (guess-limiter.ts) and the platform authorizer.
 *
 * When this process has read a value's lookup before (`memory.seenLookups`)
 * and that lookup says the value is valid for this request, the use is
 * written at the same time as the read instead of after it, so a
 * verification waits for one round trip instead of two. The read still
 * decides every answer: the caller's `decide` step sees the read and, to
 * count a use, calls `admit` with the key the read found. The early write is
 * kept only when it recorded exactly that use (`sameRecording`); in every
 * other case (the key changed, was refused, the source went over its guess
 * limit, the read or the decision failed) it is taken back in `finally`,
 * before anything is answered. No caller holds the take-back.
 */
import { sameRecording, type RecordUseResult, type UseToRecord } from '../domain/recording';
import type { EarlyUse } from '../store/early-use';
import {
  admissionOf,
  admittedResult,
  judgeLookup,
  useOf,
  type CheckedKey,
  type CheckResult,
  type VerifyRequest,
  type VerifyResult,
  type VerifyServices,
} from './verify';
import { mayBeMetered, recordCheckedUse } from './metered';
import { noteGraceUse } from './grace';

/** How a request may use the early write. */
export interface EarlyWritePlan {
  /** The request's time: the use's, whether it goes out early or after the read. */
  readonly at: Date;
  /** The presented value's hash; undefined for a value that is not well formed (nothing is sent). */
  readonly valueHash: string | undefined;
  /** Whether the predicted key would be used here at all (a route its scopes cover). Default: yes. */
  readonly wanted?: (predicted: CheckedKey) => boolean;
  /** No early write for this request (a source this process has seen over its guess limit). */
  readonly skip?: boolean;
}

/** What `decide` is given: the read's verdict, and the one way to record the key's use. */
export interface ReadVerdict {
  readonly check: CheckResult;
  /**
   * Records the use of the key the read found and applies its rate limit:
   * the early write's answer when it recorded exactly this use, else a write
   * of its own (the early one taken back first). At most once per request.
   */
  admit(checked: CheckedKey): Promise<VerifyResult>;
}

interface SentEarly {
  readonly predicted: CheckedKey;
  readonly use: UseToRecord;
  readonly written: EarlyUse;
}

/** The early write of a value this process has seen valid for this request, sent now; undefined when there is none. */
function sendEarly(deps: VerifyServices, request: VerifyRequest, plan: EarlyWritePlan): SentEarly | undefined {
  if (plan.skip || plan.valueHash === undefined) return undefined;
  const seen = deps.memory.seenLookups.get(plan.valueHash);
  if (!seen) return undefined;
  const predicted = judgeLookup(seen, request, plan.at.getTime());
  if (!predicted.valid || (plan.wanted && !plan.wanted(predicted.checked))) return undefined;
  // A metered use is decided by its meters' write (store/metered-use.ts), never ahead of its read.
  if (mayBeMetered(predicted.checked)) return undefined;
  // A key in a transition: its uses write the transition's activity (last uses, the old value's hours and networks),
  // which a take-back could not restore exactly, and a use-driven grace is judged by the read: never ahead of it.
  if (predicted.checked.transition) return undefined;
  const use = useOf(predicted.checked, plan.at);
  // Undefined when the usage store cannot take this use back exactly (a hot key's lease decides it from memory).
  const written = deps.usage.recordUseAhead(use);
  return written && { predicted: predicted.checked, use, written };
}

/**
 * Verifies a request through `read` (the value's lookup, and what else the
 * caller reads with it) and `decide`, with the recording write sent ahead
 * when this process can predict it. `read` is given the predicted key, so
 * the caller can send its own reads of that key (the authorizer's team) in
 * the same round trip.
 */
export async function withEarlyWrite<T>(
  deps: VerifyServices,
  request: VerifyRequest,
  plan: EarlyWritePlan,
  read: (predicted: CheckedKey | undefined) => Promise<CheckResult>,
  decide: (verdict: ReadVerdict) => Promise<T>,
): Promise<T> {
  const early = sendEarly(deps, request, plan);
  let kept = false;
  let admitted = false;
  try {
    const check = await read(early?.predicted);
    return await decide({
      check,
      admit: async (checked) => {
        if (admitted) throw new Error('a request records one use');
        admitted = true;
        const use = useOf(checked, plan.at);
        let recorded: RecordUseResult;
        if (early && sameRecording(early.use, use)) {
          kept = true;
          recorded = await early.written.recorded;
        } else {
          // The read contradicts the prediction: the early use goes before this one is written.
          await early?.written.takeBack();
          recorded = await recordCheckedUse(deps, checked, plan.at);
        }
        const admission = admissionOf(recorded);
        if (admission.admitted) await noteGraceUse(deps, checked, plan.at);
        return admittedResult(checked, admission);
      },
    });
  } finally {
    if (early && !kept) await early.written.takeBack();
  }
}
