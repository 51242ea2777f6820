/**
 * Stored shapes of the key table's items. Plaintext values never appear
 * here: a value is represented by its hash, its 20-character prefix and its
 * last four characters only.
 */
import type { ItemKey } from '../contract/tables';
import type { Environment, KeyType } from './key-values';

/** A key's configuration as set at creation and kept by regeneration. */
export interface KeyConfiguration {
  team_id: string;
  name: string;
  type: KeyType;
  environment: Environment;
  scopes: string[];
  domains: string[];
  ip_whitelist: string[];
  rate_limit: number;
  expires_at: string | null;
  created_by: string;
  /** The identity of the team the key belongs to (its limits and credits are shared); absent: none. */
  identity_id?: string;
  /** The key's named limits and credits setting (domain/meters.ts `meterDefText`); absent: none. */
  meter_def?: string;
}

/** Configuration of a key that authentication needs; copied into each value lookup. */
export interface KeyAuthSnapshot extends KeyConfiguration {
  key_id: string;
  is_active: boolean;
}

export type KeyState = 'active' | 'deleted';

/**
 * What a report of the key's value as leaked does (docs/secret-scanning.md):
 * `disable` stops the key at once; `notify` leaves it working. Both audit the
 * report and send `key.leaked`.
 */
export type OnLeak = 'disable' | 'notify';
export const ON_LEAK_VALUES = ['disable', 'notify'] as const satisfies readonly OnLeak[];

/** A key's `on_leak` unless set: secret keys stop, public keys (public by design) keep working. */
export function defaultOnLeak(type: KeyType): OnLeak {
  return type === 'sk' ? 'disable' : 'notify';
}

/** Key metadata item (`KEY#<id>` / `KEY`). */
export interface KeyItem extends KeyConfiguration {
  pk: string;
  sk: string;
  entity: 'key';
  id: string;
  is_active: boolean;
  created_at: string;
  description: string;
  state: KeyState;
  /** Rotation generation: 1 at creation, +1 per regeneration. */
  generation: number;
  /** What a leak report does to the key (items written before the field read as their type's default). */
  on_leak: OnLeak;
  /** First 20 characters and last four of the current value. */
  key_prefix: string;
  last_four: string;
  /** Hash of the current value; removed on delete. */
  current_hash?: string;
  /** Previous value during (or after, until clean-up) a transition. */
  previous_hash?: string;
  previous_last_four?: string;
  previous_key_prefix?: string;
  transition_ends_at?: string;
  regenerated_at?: string;
  /** A use-driven grace of the current transition (domain/grace-modes.ts); absent for `fixed`. */
  grace_mode?: string;
  grace_minutes?: number;
  /** The new value's first VALID use in the current transition, once there has been one (use-driven grace only). */
  new_value_first_used_at?: string;
  /** Compare-and-set counter of every change to the item (absent on items written before it existed: 0). */
  revision?: number;
  /** Last change of the key (configuration, value, state). */
  updated_at?: string;
  /** Whether the key may manage keys (`sk` holding `keys.manage`); for the last-manager check. */
  is_manager: boolean;
  deleted_at?: string;
  deleted_by?: string;
  /** null when the deletion gave no reason. */
  deletion_reason?: string | null;
  /** Only on tombstones: epoch seconds when DynamoDB TTL removes the item. */
  ttl?: number;
  /** Expiry notices written (`<notice>@<expires_at>`), so each is written once. */
  expiry_notices?: string[];
  gsi1pk: string;
  gsi1sk: string;
}

/** Which value of a key a lookup item stands for. */
export type ValueSlot = 'current' | 'previous';

/** Value lookup item (`HASH#<hash>` / `HASH`). */
export interface ValueLookupItem extends KeyAuthSnapshot {
  pk: string;
  sk: string;
  entity: 'value';
  slot: ValueSlot;
  /** Generation of the value itself. */
  generation: number;
  /** For a previous value: the instant it stops authenticating. */
  valid_until?: string;
  /** For a previous value: when the regeneration that replaced it happened (kept since issue 47; absent on older ones). */
  deprecated_at?: string;
  /** End of the transition this value takes part in, if any (for usage split). */
  transition_ends_at?: string;
  /** Generation whose transition this value takes part in. */
  transition_generation?: number;
  /** The transition's use-driven grace (domain/grace-modes.ts); absent for `fixed`. */
  grace_mode?: string;
  grace_minutes?: number;
  /** Previous value: the new value's first VALID use, once there has been one. */
  new_value_first_used_at?: string;
  /** Current value of a use-driven transition: the old value's hash, so that its first use can be marked on the old value's lookup. */
  old_value_hash?: string;
  ttl?: number;
}

/** A key's requests per day of one month, once older than the usage item keeps (`d01` … `d31`), and their sum. */
export interface UsageMonthItem {
  pk: string;
  sk: string;
  entity: 'usage-month';
  key_id: string;
  month: string;
  total: number;
  [day: `d${string}`]: number;
}

/** Usage item (`KEY#<id>` / `USAGE`); never expires. */
export interface UsageItem {
  pk: string;
  sk: string;
  entity: 'usage';
  key_id: string;
  team_id: string;
  total_requests: number;
  last_used_at: string | null;
  /** The last use admitted as VALID (absent until one is, and on items last written before it was kept). */
  last_valid_at?: string;
  /**
   * Requests per UTC day, `YYYY-MM-DD` → count: the last `USAGE_DAYS_KEPT`
   * days only (older days live in the key's month items), so the item every
   * verification writes stays the same size whatever the key's age.
   */
  daily: Record<string, number>;
  /** Uses per transition: `g<generation>_old` / `g<generation>_new` → count (see `summariseUsage`). */
  transitions: Record<string, number>;
  /** Rate-limit windows: window index (hours since epoch) → admitted requests. */
  windows: Record<string, number>;
}

/** Team item (`TEAM#<team_id>` / `TEAM`): the team's usage plan and API Gateway key; never expires. */
export interface TeamItem {
  pk: string;
  sk: string;
  entity: 'team';
  team_id: string;
  /** Name of the usage plan (lambda/contract/plans.ts). */
  plan: string;
  /** API Gateway API key id (`local-…` locally). */
  usage_key_id: string;
  /**
   * The API Gateway key's value: the usage identifier the authorizers return.
   * A random secret no team ever sees; it grants nothing by itself (the
   * service's own keys authenticate). Never logged.
   */
  usage_key: string;
  created_at: string;
  updated_at: string;
  /** The team's policy: keys with no VALID use in this many days are disabled (null or absent: none; team-settings.ts). */
  disable_unused_after_days?: number | null;
  /** Compare-and-set counter of the settings (their ETag); absent: 0. */
  settings_revision?: number;
  settings_updated_at?: string;
  /** On the team index while the team has the policy (the daily job's query), else absent. */
  gsi1pk?: string;
  gsi1sk?: string;
}

/** A stored answer to an idempotent request. */
export interface IdempotencyRecord extends ItemKey {
  entity: 'idempotency';
  fingerprint: string;
  status: number;
  /** The answer's JSON, the issued value replaced by null. */
  body: string;
  created_at: string;
  ttl: number;
}

/** What a valid verification knows about the key. */
export interface VerifiedKey {
  id: string;
  team_id: string;
  name: string;
  type: KeyType;
  environment: Environment;
  scopes: string[];
  created_by: string;
  rate_limit: number;
  /** Which of the key's values was presented. */
  slot: ValueSlot;
  /** The old value's end (ISO), when the presented value is a key's old one in its grace period. */
  old_value_ends_at?: string;
  /** When the old value was replaced (ISO): the regeneration; absent for values replaced before it was kept. */
  old_value_since?: string;
  /** The key's identity, when it names one. */
  identity_id?: string;
  /** The key's named limits and credits setting, when it has any. */
  meter_def?: string;
}
