/**
 * How a checked key's use is recorded: with the hourly limit alone
 * (`recordUse`), or metered, when the verification is metered and the key
 * or its identity has named limits or credits (store/metered-use.ts).
 */
import type { UseToRecord, RecordUseResult } from '../domain/recording';
import type { MeteredUse, MeteredUses } from '../store/metered-use';
import { parseMeterDef, usesMeter } from '../domain/meters';
import type { VerifiedKey } from '../domain/model';
import type { IdentityStore } from '../store/identity-store';
import type { UsageStore } from '../store/usage-store';
import type { CheckedGrace } from '../domain/grace-modes';

/** A key that passed every check, before its use is recorded. */
export interface CheckedKey {
  key: VerifiedKey;
  /** Set while the key is in a transition: which transition, and which value was used. */
  transition?: { generation: number; role: 'old' | 'new' };
  /** A use-driven grace of the transition (grace.ts). */
  grace?: CheckedGrace;
  /** An old value's caller network, counted with its use (grace.ts `trackedSource`). */
  source?: string;
  /** See `VerifyResult`. */
  allowedOrigin?: string;
  /** Set for a metered verification (`VerifyRequest.cost`): the scopes it asked and its cost. */
  asked?: { scopes: readonly string[]; cost: number };
}

/** What recording a checked key's use takes (verify.ts `VerifyServices` has them). */
export interface MeteringServices {
  readonly usage: UsageStore;
  readonly identities?: Pick<IdentityStore, 'identityForVerification'>;
  /** Metered admissions: only the functions that meter (the verify endpoint, the platform authorizer) have them. */
  readonly meters?: MeteredUses;
}

/** The use of a checked key at `at`, as the usage store records it. */
export function useOf(checked: CheckedKey, at: Date, refused = false): UseToRecord {
  return {
    keyId: checked.key.id,
    at,
    rateLimit: checked.key.rate_limit,
    transition: checked.transition,
    ...(refused ? { refused } : {}),
    ...(checked.source ? { source: checked.source } : {}),
  };
}

/**
 * The metered use of a checked key (store/metered-use.ts), or undefined when
 * the verification is not metered or neither the key nor its identity has
 * named limits or credits (the hourly limit alone: `recordUse`).
 */
export async function meteredUseOf(deps: MeteringServices, checked: CheckedKey, at: Date): Promise<MeteredUse | undefined> {
  if (!checked.asked) return undefined;
  const keyDef = parseMeterDef(checked.key.meter_def);
  const identityId = checked.key.identity_id;
  const identity = identityId && deps.identities ? await deps.identities.identityForVerification(identityId, at.getTime()) : undefined;
  const identityDef = parseMeterDef(identity?.meter_def);
  if (!usesMeter(keyDef) && !usesMeter(identityDef)) return undefined;
  return {
    ...useOf(checked, at),
    scopes: checked.asked.scopes,
    cost: checked.asked.cost,
    teamId: checked.key.team_id,
    keyDef,
    ...(identityId && identity && usesMeter(identityDef)
      ? { identity: { id: identityId, def: identityDef, item: identity as unknown as Record<string, unknown> } }
      : {}),
  };
}

/** Whether a checked key's use may be metered (limits or credits of its own, or an identity that may have them): no early write for it. */
export const mayBeMetered = (checked: CheckedKey): boolean => !!checked.asked && (!!checked.key.meter_def || !!checked.key.identity_id);

/** Records the use of a checked key: metered when it must be, else with the hourly limit alone. */
export async function recordCheckedUse(deps: MeteringServices, checked: CheckedKey, at: Date, refused = false): Promise<RecordUseResult> {
  // Only the hot path meters (the verify endpoint, the authorizer): elsewhere the stack's bundle drops this branch.
  if (process.env.HOT_PATH_BUNDLE !== 'off') {
    const metered = await meteredUseOf(deps, checked, at);
    if (metered && deps.meters) {
      await deps.usage.settle(metered.keyId);
      return deps.meters.admit(metered);
    }
  }
  return deps.usage.recordUse(useOf(checked, at, refused));
}
