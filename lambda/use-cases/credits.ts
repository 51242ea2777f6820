/**
 * Credits adjusted by hand (docs/limits.md): a grant
 * added to a key's or an identity's credits (spent after the refill
 * allowance, soonest-expiring first; a refill never wipes it), or the
 * allowance set. Team-scoped as the key and identity routes are; one
 * transaction with its audit record and, under `Idempotency-Key`, its answer.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { actorOf, type RequestMeta } from '../domain/actor';
import { AuditEventType } from '../domain/audit-events';
import { creditsRemaining, parseMeterDef, refillPeriod, type CreditRefill } from '../domain/meters';
import { newKeyId } from '../platform/ids';
import { idempotencyRecord } from '../store/idempotency-record';
import { auditItem } from '../store/entities/audit-record';
import { USAGE } from '../store/entities/usage';
import { IDENTITY } from '../store/entities/identity';
import type { ClockPort, CreditsPort, IdentitiesPort, KeysPort } from '../store/ports';
import type { VerifiedKey } from '../verification/verify';
import type { IdempotentAnswer } from './create-key';
import { ownIdentity } from './identities';
import { reachableKey } from './read-keys';

export type AdjustCreditsPorts = CreditsPort & KeysPort & IdentitiesPort & ClockPort;

export interface AdjustCreditsInput {
  key_id?: string;
  identity_id?: string;
  add?: number;
  set?: number;
  /** A grant's end (null or absent: never). */
  expires_at?: string | null;
  reason: string;
}

/**
 * The answer: whose credits, the adjustment made, and (on the first answer
 * only) everything still spendable just after it. A replay under the same
 * `Idempotency-Key` answers the adjustment as made, without `credits`: the
 * balance has moved since; read the key or the identity for it.
 */
export interface AdjustedCredits {
  key_id?: string;
  identity_id?: string;
  adjustment: { add?: number; set?: number; expires_at: string | null; reason: string };
  credits?: { remaining: number; refill: CreditRefill | null };
}

const noCredits = (owner: string) =>
  new ApiError(ErrorCode.CONFLICT, `The ${owner} has no credits (it is unlimited): give it credits with its update route first.`, [
    { field: 'credits', issue: 'none to adjust' },
  ]);

export async function adjustCredits(
  services: AdjustCreditsPorts,
  caller: VerifiedKey,
  input: AdjustCreditsInput,
  meta: RequestMeta,
  idempotent?: IdempotentAnswer<AdjustedCredits>,
): Promise<AdjustedCredits> {
  const now = services.clock.now();
  const owner = input.key_id
    ? { key_id: input.key_id, item: USAGE.key(input.key_id), def: (await reachableKey(services, caller, input.key_id, now)).meter_def, word: 'key' }
    : {
        identity_id: input.identity_id as string,
        item: IDENTITY.key(input.identity_id as string),
        def: (await ownIdentity(services, caller, input.identity_id as string)).meter_def,
        word: 'identity',
      };
  const setting = parseMeterDef(owner.def).credits;
  if (!setting) throw noCredits(owner.word);
  const whose = input.key_id ? { key_id: input.key_id } : { identity_id: input.identity_id as string };
  // A set allowance belongs to the current refill period: a refill due is replaced by it, not applied after it.
  const period = setting.refill ? { period: refillPeriod(setting.refill, now) } : {};
  const adjustment =
    input.add !== undefined ? { add: input.add, grantId: newKeyId(), expiresAt: input.expires_at ?? null } : { set: input.set as number, ...period };
  const made: AdjustedCredits = {
    ...whose,
    adjustment: { ...(input.add !== undefined ? { add: input.add } : { set: input.set }), expires_at: input.expires_at ?? null, reason: input.reason },
  };
  const audit = auditItem({
    event_type: AuditEventType.CREDITS_ADJUSTED,
    occurred_at: now.toISOString(),
    team_id: caller.team_id,
    actor: actorOf(caller, meta),
    ...made,
  });
  const answer = idempotent && idempotencyRecord(idempotent.claim, idempotent.status, idempotent.bodyOf(made), now);
  const meter = await services.credits.adjust(owner.item, adjustment, audit, answer);
  if (meter === 'no_credits') throw noCredits(owner.word);
  return { ...made, credits: { remaining: creditsRemaining(meter.credits ?? { left: 0, grants: {} }, setting, now), refill: setting.refill } };
}
