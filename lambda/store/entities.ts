/**
 * The key table's entities, each declared once (entity.ts): the stores read
 * every item through these, so an item of the wrong shape is an error where
 * it is read, not a wrong answer further on. The compiler holds each
 * declaration to its type in domain/model.ts (the audit table's records are
 * parsed by their own schema, domain/audit-event.ts).
 */
import type { KeyConfiguration, KeyItem, TeamItem, UsageItem, UsageMonthItem, ValueLookupItem } from '../domain/model';
import type { IdempotencyRecord } from './idempotency-record';
import {
  BOOLEAN,
  COUNTS,
  NUMBER,
  OPTIONAL_NUMBER,
  OPTIONAL_STRING,
  OPTIONAL_STRING_OR_NULL,
  STRING,
  STRING_OR_NULL,
  STRINGS,
  entity,
  type Attributes,
} from './entity';

/** Every item's key. */
const ITEM_KEY = { pk: STRING, sk: STRING } as const;

const CONFIGURATION = {
  team_id: STRING,
  name: STRING,
  type: ['pk', 'sk'],
  environment: ['test', 'live'],
  scopes: STRINGS,
  domains: STRINGS,
  ip_whitelist: STRINGS,
  rate_limit: NUMBER,
  expires_at: STRING_OR_NULL,
  created_by: STRING,
} as const satisfies Attributes<KeyConfiguration>;

export const KEY = /* @__PURE__ */ entity<KeyItem>('key', {
  ...CONFIGURATION,
  ...ITEM_KEY,
  entity: ['key'],
  id: STRING,
  is_active: BOOLEAN,
  created_at: STRING,
  description: STRING,
  state: ['active', 'deleted'],
  generation: NUMBER,
  key_prefix: STRING,
  last_four: STRING,
  current_hash: OPTIONAL_STRING,
  previous_hash: OPTIONAL_STRING,
  previous_last_four: OPTIONAL_STRING,
  previous_key_prefix: OPTIONAL_STRING,
  transition_ends_at: OPTIONAL_STRING,
  regenerated_at: OPTIONAL_STRING,
  revision: OPTIONAL_NUMBER,
  updated_at: OPTIONAL_STRING,
  is_manager: BOOLEAN,
  deleted_at: OPTIONAL_STRING,
  deleted_by: OPTIONAL_STRING,
  deletion_reason: OPTIONAL_STRING_OR_NULL,
  ttl: OPTIONAL_NUMBER,
  gsi1pk: STRING,
  gsi1sk: STRING,
});

export const VALUE_LOOKUP = /* @__PURE__ */ entity<ValueLookupItem>('value lookup', {
  ...CONFIGURATION,
  ...ITEM_KEY,
  entity: ['value'],
  key_id: STRING,
  is_active: BOOLEAN,
  slot: ['current', 'previous'],
  generation: NUMBER,
  valid_until: OPTIONAL_STRING,
  transition_ends_at: OPTIONAL_STRING,
  transition_generation: OPTIONAL_NUMBER,
  ttl: OPTIONAL_NUMBER,
});

export const USAGE = /* @__PURE__ */ entity<UsageItem>('usage', {
  ...ITEM_KEY,
  entity: ['usage'],
  key_id: STRING,
  team_id: STRING,
  total_requests: NUMBER,
  last_used_at: STRING_OR_NULL,
  daily: COUNTS,
  transitions: COUNTS,
  windows: COUNTS,
});

export const USAGE_MONTH = /* @__PURE__ */ entity<UsageMonthItem>(
  'usage month',
  { ...ITEM_KEY, entity: ['usage-month'], key_id: STRING, month: STRING, total: NUMBER },
  { pattern: /^d\d\d$/, kind: NUMBER },
);

export const TEAM = /* @__PURE__ */ entity<TeamItem>('team', {
  ...ITEM_KEY,
  entity: ['team'],
  team_id: STRING,
  plan: STRING,
  usage_key_id: STRING,
  usage_key: STRING,
  created_at: STRING,
  updated_at: STRING,
});

export const IDEMPOTENCY = /* @__PURE__ */ entity<IdempotencyRecord>('idempotency', {
  ...ITEM_KEY,
  entity: ['idempotency'],
  fingerprint: STRING,
  status: NUMBER,
  body: STRING,
  created_at: STRING,
  ttl: NUMBER,
});
