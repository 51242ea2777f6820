/**
 * A use to record, and what decides how it is written. A use predicted from
 * the process's memory and written before the read that decides it
 * (verification/early-write.ts) is kept only when the read gives the same
 * recording: the fields that shape it are declared once, here, and the
 * compiler holds `RECORDING_FIELDS` to them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RateLimitState } from './rate-window';
import type { LimitFigure } from './meters';

/** What decides how a use is written: which key's counters, under which rate limit, in which transition counter. */
export interface Recording {
  keyId: string;
  rateLimit: number;
  /** When the key is in a transition: which value was presented, and the transition's generation. */
  transition?: { generation: number; role: 'old' | 'new' };
}

/** Every field of `Recording`, and no other (a field added there and not here fails to compile). */
const RECORDING_FIELDS = ['keyId', 'rateLimit', 'transition'] as const satisfies readonly (keyof Recording)[];
type Unlisted = Exclude<keyof Recording, (typeof RECORDING_FIELDS)[number]>;
const everyFieldListed: [Unlisted] extends [never] ? true : never = true;

/** Whether two uses would be recorded alike: same key, same rate limit, same transition counter. */
export function sameRecording(a: Recording, b: Recording): boolean {
  return everyFieldListed && RECORDING_FIELDS.every((field) => isDeepStrictEqual(a[field], b[field]));
}

/** One use at `at`. */
export interface UseToRecord extends Recording {
  at: Date;
  /** A key refused for this request (IP, origin, scope: management authentication): its use counts, never as VALID. */
  refused?: boolean;
  /** An old value's use: the caller's network, when tracked (verification/grace.ts). */
  source?: string;
}

/** A metered use's figures (domain/meters.ts): the applicable named limits, and the charged credits. */
export interface MeterFigures {
  limits: LimitFigure[];
  credits?: { remaining: number };
  /** Refused by a limit: seconds until every limit that refused has room (the answer's Retry-After). */
  retryAfterSeconds?: number;
}

/** `meters`: set only for a key or an identity with named limits or credits. */
export type RecordUseResult =
  | { admitted: true; rateLimit: RateLimitState; meters?: MeterFigures }
  | { admitted: false; reason: 'RATE_LIMITED' | 'USAGE_EXCEEDED'; rateLimit: RateLimitState; meters?: MeterFigures }
  | { admitted: false; reason: 'NO_USAGE_ITEM' };
