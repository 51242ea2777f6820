/**
 * The key table's entities, each declared once (entity.ts): the stores read
 * every item through these, so an item of the wrong shape is an error where
 * it is read, not a wrong answer further on. The compiler holds each
 * declaration to its type in domain/model.ts (the audit table's records are
 * parsed by their own schema, domain/audit-event-schema.ts).
 */
import {
  defaultOnLeak,
  type IdempotencyRecord,
  type KeyConfiguration,
  type KeyItem,
  type TeamItem,
  type UsageItem,
  type UsageMonthItem,
  type ValueLookupItem,
} from '../domain/model';
import type { DeliveryItem, StoredWebhookEvent, WebhookEndpointItem } from '../domain/webhook-endpoints';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks';
import {
  BOOLEAN,
  COUNTS,
  NUMBER,
  NUMBER_OR_NULL,
  OPTIONAL_NUMBER,
  OPTIONAL_STRING,
  OPTIONAL_STRING_OR_NULL,
  OPTIONAL_STRINGS,
  STRING,
  STRING_OR_NULL,
  STRINGS,
  entity,
  type Attributes,
} from './entities/entity';

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

export const KEY = /* @__PURE__ */ entity<KeyItem>(
  'key',
  {
    ...CONFIGURATION,
    ...ITEM_KEY,
    entity: ['key'],
    id: STRING,
    is_active: BOOLEAN,
    created_at: STRING,
    description: STRING,
    state: ['active', 'deleted'],
    generation: NUMBER,
    on_leak: ['disable', 'notify'],
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
    expiry_notices: OPTIONAL_STRINGS,
    gsi1pk: STRING,
    gsi1sk: STRING,
  },
  { defaults: { on_leak: (item) => defaultOnLeak(item.type === 'pk' ? 'pk' : 'sk') } },
);

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
  { rest: { pattern: /^d\d\d$/, kind: NUMBER } },
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

export const WEBHOOK_ENDPOINT = /* @__PURE__ */ entity<WebhookEndpointItem>('webhook endpoint', {
  ...ITEM_KEY,
  entity: ['webhook'],
  id: STRING,
  team_id: STRING,
  url: STRING,
  description: STRING,
  events: STRINGS,
  is_active: BOOLEAN,
  created_at: STRING,
  updated_at: STRING,
  created_by: STRING,
  revision: NUMBER,
  failing_since: STRING_OR_NULL,
  disabled_reason: STRING_OR_NULL,
  secret: STRING,
  previous_secret: OPTIONAL_STRING,
  previous_secret_until: OPTIONAL_STRING,
  gsi1pk: STRING,
  gsi1sk: STRING,
});

export const DELIVERY = /* @__PURE__ */ entity<DeliveryItem>('webhook delivery', {
  ...ITEM_KEY,
  entity: ['delivery'],
  id: STRING,
  endpoint_id: STRING,
  team_id: STRING,
  event_id: STRING,
  event_type: WEBHOOK_EVENT_TYPES,
  attempt: NUMBER,
  attempted_at: STRING,
  status_code: NUMBER_OR_NULL,
  error: STRING_OR_NULL,
  duration_ms: NUMBER,
  outcome: ['succeeded', 'retrying', 'failed', 'endpoint_disabled'],
  next_attempt_at: STRING_OR_NULL,
  ttl: NUMBER,
});

export const WEBHOOK_EVENT = /* @__PURE__ */ entity<StoredWebhookEvent>('webhook event', {
  ...ITEM_KEY,
  entity: ['webhook-event'],
  id: STRING,
  type: WEBHOOK_EVENT_TYPES,
  team_id: STRING,
  timestamp: STRING,
  payload: STRING,
  endpoint_id: OPTIONAL_STRING,
  ttl: NUMBER,
});
