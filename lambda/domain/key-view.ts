/**
 * A key as the read and edit routes show it: every field of the create
 * response's `data` except `key`, plus its state, transition end and last
 * change. Built from the stored item and its usage figures; no hash, no
 * value, ever.
 */
import { meterResource, parseMeterDef, type CreditRefill, type NamedLimit } from './meters';
import { graceEnd, keyGraceFacts } from './grace-modes';
import type { UsageSummary } from './usage-figures';
import { inLiveTransition } from './key-lifetime';
import { configurationOf } from './key-records';
import type { KeyConfiguration, KeyItem, OnLeak } from './model';

/** Where a key stands at an instant; `deleted` only for tombstones. */
export type KeyStateName = 'active' | 'in_transition' | 'disabled' | 'expired' | 'deleted';

export const KEY_STATES: readonly KeyStateName[] = ['active', 'in_transition', 'disabled', 'expired', 'deleted'];

/** The create response's key without its value, plus where the key stands. */
export interface KeyResource extends Omit<CreatedKey, 'key'> {
  state: KeyStateName;
  transition_ends_at: string | null;
  updated_at: string;
  deleted_at?: string;
}

/** The state of a key at `now`: deleted, then disabled, then expired, then in transition, else active. */
export function keyStateOf(key: KeyItem, now: Date): KeyStateName {
  if (key.state === 'deleted') return 'deleted';
  if (!key.is_active) return 'disabled';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) return 'expired';
  if (inLiveTransition(key, now)) return 'in_transition';
  return 'active';
}

/** When the key last changed: its own stamp, or the latest event that changed it before stamps were kept. */
export function updatedAtOf(key: KeyItem): string {
  return key.updated_at ?? key.deleted_at ?? key.regenerated_at ?? key.created_at;
}

/**
 * The key with its transition's end as use has decided it so far (a
 * use-driven grace, grace-modes.ts): under `until_idle` the projection from
 * the old value's last use; otherwise the key as stored (`first_use` writes
 * its end when the new value is first used).
 */
export function withUseDrivenEnd(key: KeyItem, usage: Pick<UsageSummary, 'transition_entries'>): KeyItem {
  const facts = key.previous_hash && key.new_value_first_used_at ? keyGraceFacts(key, usage.transition_entries) : undefined;
  return facts ? { ...key, transition_ends_at: new Date(graceEnd(facts).at).toISOString() } : key;
}

export function keyResource(stored: KeyItem, usage: Pick<UsageSummary, 'last_used_at' | 'credits' | 'transition_entries'>, now: Date): KeyResource {
  const key = withUseDrivenEnd(stored, usage);
  const state = keyStateOf(key, now);
  const { meter_def, ...configuration } = configurationOf(key);
  return {
    id: key.id,
    ...configuration,
    ...meterResource(parseMeterDef(meter_def), usage.credits, now),
    key_prefix: key.key_prefix,
    last_four: key.last_four,
    is_active: key.is_active,
    created_at: key.created_at,
    last_used_at: usage.last_used_at,
    description: key.description,
    on_leak: key.on_leak,
    state,
    transition_ends_at: state !== 'deleted' && inLiveTransition(key, now) ? (key.transition_ends_at as string) : null,
    updated_at: updatedAtOf(key),
    ...(state === 'deleted' && key.deleted_at ? { deleted_at: key.deleted_at } : {}),
  };
}

/** The API key resource as the create response shows it (with the value, once). */
export interface CreatedKey extends Omit<KeyConfiguration, 'meter_def'> {
  /** Its named limits, when it has any. */
  limits?: NamedLimit[];
  /** Its credits (everything still spendable, and the refill), when it has any. */
  credits?: { remaining: number; refill: CreditRefill | null };
  id: string;
  key: string;
  key_prefix: string;
  last_four: string;
  is_active: boolean;
  created_at: string;
  last_used_at: string | null;
  description: string;
  on_leak: OnLeak;
}
