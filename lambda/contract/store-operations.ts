/**
 * What each storage operation of the service touches. The stores
 * (lambda/store/key-store.ts, lambda/store/usage-store.ts) implement exactly
 * these operations; each route declares the ones it runs (its route.ts), the
 * other functions theirs here; the CDK stack derives every function's
 * DynamoDB grants from those lists, and
 * test/architecture/store-operations.test.ts records the requests each
 * operation really sends against DynamoDB Local and checks them against it.
 *
 * There is no IAM action for TransactWriteItems: a transaction needs the
 * action of each item it writes or checks (PutItem, UpdateItem, DeleteItem,
 * ConditionCheckItem), so transactional operations list those.
 */

/** DynamoDB actions the service's functions may be granted. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:Query';

/** Which tables (and the key table's team index) an operation touches, and how. */
export interface OperationAccess {
  readonly keyTable?: readonly TableAction[];
  readonly keyTeamIndex?: readonly TableAction[];
  readonly auditTable?: readonly TableAction[];
  readonly auditTeamIndex?: readonly TableAction[];
  /** Sent as one TransactWriteItems (the item actions above are its items). */
  readonly transactional?: boolean;
}

/**
 * An operation that writes an audit record: it also reads the team's chain
 * head (GetItem) and advances it in the same transaction (UpdateItem), so
 * the record is linked into the team's hash chain (lambda/store/audit-links.ts).
 */
/* @__NO_SIDE_EFFECTS__ */
function audited<const A extends OperationAccess>(access: A): A & { readonly keyTable: readonly TableAction[] } {
  return { ...access, keyTable: [...new Set<TableAction>([...(access.keyTable ?? []), 'dynamodb:GetItem', 'dynamodb:UpdateItem'])] };
}

export const STORE_OPERATIONS = {
  /** A presented value's lookup item (authentication). */
  readValueLookup: { keyTable: ['dynamodb:GetItem'] },
  /** A use-driven grace's idle check: the old value's last use, from the key's usage item (lambda/store/grace-marks.ts). */
  readOldValueUse: { keyTable: ['dynamodb:GetItem'] },
  /** The new value's first VALID use in a use-driven grace, marked on the old value's lookup and the key item. */
  markNewValueUsed: { keyTable: ['dynamodb:UpdateItem'] },
  /** The lookup and the source's guess counter in one round trip (verify endpoint). */
  readValueLookupAndGuessCounter: { keyTable: ['dynamodb:BatchGetItem'] },
  /**
   * One authenticated use: usage counters and the rate-limit window (plus
   * slot release and tidying); once a day, a day older than the usage item
   * keeps is copied to its month item.
   */
  recordUse: { keyTable: ['dynamodb:UpdateItem'] },
  /**
   * A metered use (named limits, credits; lambda/store/metered-use.ts): the
   * key's usage item written alone, or the key's and its identity's meters
   * read after their transaction (`admitSharedMeteredUse`) for the figures.
   */
  admitMeteredUse: { keyTable: ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem'] },
  /**
   * A metered use's transactions: the key's and its identity's meters
   * together, and a credits.low or credits.exhausted mark with its audit
   * record (lambda/store/credit-notices.ts).
   */
  admitSharedMeteredUse: /* @__PURE__ */ audited({ keyTable: ['dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** Credits added (a grant) or set on a key's or an identity's meter, with the audit record and the idempotent answer; then the meter read for the answer. */
  adjustCredits: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** One failed verification of an unknown value from a source. */
  countGuess: { keyTable: ['dynamodb:UpdateItem'] },
  /**
   * The target key's item and usage item, with the caller's value lookup (or
   * alone, behind the management authorizer), in one BatchGetItem
   * (lambda/store/prefetch.ts).
   */
  readTargetKey: { keyTable: ['dynamodb:BatchGetItem'] },
  /** A key item by id. */
  readKey: { keyTable: ['dynamodb:GetItem'] },
  /** A key's usage item. */
  readUsage: { keyTable: ['dynamodb:GetItem'] },
  /** The team's manager keys (last-manager guard). */
  listTeamKeys: { keyTeamIndex: ['dynamodb:Query'] },
  /** A key's monthly usage history items (the usage route, beyond the usage item's days). */
  readUsageHistory: { keyTable: ['dynamodb:Query'] },
  /** `last_used_at` of a page of keys, in one BatchGetItem (key list). */
  readUsageBatch: { keyTable: ['dynamodb:BatchGetItem'] },
  /** A key's or a team's audit records, newest first. */
  readAuditTrail: { auditTable: ['dynamodb:Query'], auditTeamIndex: ['dynamodb:Query'] },
  /** A team's whole audit chain in seq order (the audit table's chain index, granted with its team index). */
  readAuditChain: { auditTeamIndex: ['dynamodb:Query'] },
  /** A team's plan and usage key (the authorizers' usage identifier). */
  readTeam: { keyTable: ['dynamodb:GetItem'] },
  /** A team's settings changed (compare-and-set on their revision) with the audit record (lambda/use-cases/team-settings.ts). */
  changeTeamSettings: /* @__PURE__ */ audited({ keyTable: ['dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** The teams with a `disable_unused_after_days` policy (their partition of the team index). */
  listUnusedPolicies: { keyTeamIndex: ['dynamodb:Query'] },
  /** A `key.unused` warning noted on the key once per last use, with its audit record. */
  recordUnusedNotice: /* @__PURE__ */ audited({ keyTable: ['dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** A stored idempotency record (create, regenerate). */
  readIdempotencyRecord: { keyTable: ['dynamodb:GetItem'] },
  /** Configuration change: key item, the lookups that authenticate, a surviving manager checked, the identity left or joined, the audit record. */
  updateKey: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** Key item, value lookup, usage item, the identity joined (if named) and `key.created` record, in one transaction. */
  createKey: /* @__PURE__ */ audited({ keyTable: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** New value: key item compare-and-set, new lookup, old lookup kept or dropped, `key.regenerated`. */
  rotateValue: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** End of a grace period: previous value removed, `key.old_value_expired`. */
  expirePreviousValue: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** Delete: tombstone, every lookup dropped, a surviving manager checked, `key.deleted`. */
  tombstoneKey: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** Many value lookups by hash, 100 to a BatchGetItem (a leak report's values). */
  readValueLookups: { keyTable: ['dynamodb:BatchGetItem'] },
  /** A leak report: the key disabled or its old value ended (or nothing changed), the `key.leaked` record, the idempotent answer. */
  recordLeak: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** A platform stage's next authorizer-cache flush claimed (at most one a second, whatever the concurrency). */
  claimCacheFlush: { keyTable: ['dynamodb:UpdateItem'] },
  /** An expiry notice noted on the key with its audit record (key.expiring, key.expired). */
  recordExpiryNotice: /* @__PURE__ */ audited({ keyTable: ['dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** A webhook endpoint, the team's endpoint count and the audit record, in one transaction. */
  createWebhookEndpoint: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** A webhook endpoint by id. */
  readWebhookEndpoint: { keyTable: ['dynamodb:GetItem'] },
  /** A team's webhook endpoints, on the team index. */
  listWebhookEndpoints: { keyTeamIndex: ['dynamodb:Query'] },
  /** An endpoint's settings or secrets changed, with the audit record. */
  changeWebhookEndpoint: /* @__PURE__ */ audited({ keyTable: ['dynamodb:UpdateItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** An endpoint deleted, the team's count lowered, the audit record. */
  deleteWebhookEndpoint: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** The audit record of a webhook action that changes no endpoint (a test, a redelivery). */
  auditWebhookAction: /* @__PURE__ */ audited({ auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** An endpoint's run of failures noted or cleared. */
  recordWebhookOutcome: { keyTable: ['dynamodb:UpdateItem'] },
  /** An event's body kept for redelivery. */
  keepWebhookEvent: { keyTable: ['dynamodb:PutItem'] },
  /** A kept event by id. */
  readWebhookEvent: { keyTable: ['dynamodb:GetItem'] },
  /** One delivery attempt. */
  recordDelivery: { keyTable: ['dynamodb:PutItem'] },
  /** A slot of an endpoint's attempts in flight, claimed before an attempt and given back after it. */
  claimDeliverySlot: { keyTable: ['dynamodb:UpdateItem'] },
  /** An endpoint's delivery attempts. */
  readDeliveries: { keyTable: ['dynamodb:Query', 'dynamodb:GetItem'] },
  /** Verifications counted in a process, written as minute records, and the hours they fall in marked for the rollup (store/verification-counts.ts). */
  countVerifications: { keyTable: ['dynamodb:UpdateItem'] },
  /** A team's verification counts: minute records and hour or day rollups. */
  readVerificationCounts: { keyTable: ['dynamodb:Query'] },
  /** Marked hours rolled up: their minute records summed into the hour's and the day's rollups, the mark removed. */
  rollUpVerificationCounts: { keyTable: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'] },
  /** An identity, the claim of its external id and the audit record, in one transaction. */
  createIdentity: /* @__PURE__ */ audited({ keyTable: ['dynamodb:PutItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** An identity by id, or by its external id's claim. */
  readIdentity: { keyTable: ['dynamodb:GetItem'] },
  /** A team's identities, on the team index. */
  listIdentities: { keyTeamIndex: ['dynamodb:Query'] },
  /** An identity changed (its external id's claim swapped when that changes), with the audit record. */
  changeIdentity: /* @__PURE__ */ audited({
    keyTable: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    auditTable: ['dynamodb:PutItem'],
    transactional: true,
  }),
  /** An identity and its external id's claim deleted (only while no key names it), with the audit record. */
  deleteIdentity: /* @__PURE__ */ audited({ keyTable: ['dynamodb:DeleteItem'], auditTable: ['dynamodb:PutItem'], transactional: true }),
  /** The keys of an identity (its membership items, strongly consistent). */
  listIdentityKeys: { keyTable: ['dynamodb:Query'] },
  /** The team chains that moved since their last checkpoint (their heads' partition of the team index). */
  listMovedChains: { keyTeamIndex: ['dynamodb:Query'] },
  /** A team's latest signed audit checkpoint. */
  readAuditCheckpoint: { keyTable: ['dynamodb:GetItem'] },
  /** A checkpoint kept as the team's latest (only over an earlier seq), its head taken off the moved list (only while still at that seq). */
  recordCheckpoint: { keyTable: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] },
  /** A checkpoint signing key's public half, recorded once before its first signature. */
  recordSigningKey: { keyTable: ['dynamodb:PutItem'] },
  /** Every key that ever signed a checkpoint (their partition of the team index). */
  listSigningKeys: { keyTeamIndex: ['dynamodb:Query'] },
} as const satisfies Record<string, OperationAccess>;

export type StoreOperation = keyof typeof STORE_OPERATIONS;

/**
 * The constant the CDK app defines in a bundle for a storage operation the
 * function does not declare (`"absent"`; lib/house-function.ts): the store
 * method that writes it is then dead code to esbuild, with the item builders
 * only it uses (store/key-store.ts). Unset anywhere else (tests, the local
 * runtime), where every operation is live.
 */
export function operationBundleFlag(name: StoreOperation): string {
  return `process.env.OPERATION_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_BUNDLE`;
}

/** What every authenticated request runs: the caller's value lookup, its use recorded, and the analytics' count of it. */
export const AUTHENTICATED: readonly StoreOperation[] = ['readValueLookup', 'readOldValueUse', 'recordUse', 'markNewValueUsed', 'countVerifications'];
/** A management route acting on one key: the key and its usage, read with the caller's lookup. */
export const TARGET_KEY: readonly StoreOperation[] = ['readTargetKey', 'readKey', 'readUsage'];

/**
 * The storage operations of the functions that are not routes (the routes
 * declare theirs in lambda/routes/<route>/route.ts; lambda/routes/index.ts
 * joins both into FUNCTION_OPERATIONS).
 */
// A function, so that a bundle which never reads the list (every route's) carries none of it: esbuild keeps an object built with spreads.
export const HANDLER_OPERATIONS = /* @__PURE__ */ (() =>
  ({
    authorizer: [...AUTHENTICATED, 'readTeam', 'readIdentity', 'admitMeteredUse', 'admitSharedMeteredUse'],
    'management-authorizer': ['readValueLookup', 'readOldValueUse', 'readTeam', 'countVerifications'],
    'expire-old-value': ['readKey', 'readUsage', 'expirePreviousValue'],
    'checkpoint-audit': ['listMovedChains', 'readAuditCheckpoint', 'recordCheckpoint', 'recordSigningKey'],
    'disable-unused-keys': ['listUnusedPolicies', 'listTeamKeys', 'readUsageBatch', 'recordUnusedNotice', 'updateKey'],
    'notify-key-expiry': ['readKey', 'recordExpiryNotice'],
    'flush-authorizer-cache': ['claimCacheFlush'],
    'roll-up-analytics': ['rollUpVerificationCounts'],
    'deliver-webhooks': [
      'listWebhookEndpoints',
      'readWebhookEndpoint',
      'keepWebhookEvent',
      'readWebhookEvent',
      'recordDelivery',
      'claimDeliverySlot',
      'recordWebhookOutcome',
      'changeWebhookEndpoint',
    ],
  }) as const satisfies Record<string, readonly StoreOperation[]>)();

/**
 * What one public method of a store sends: the declared operation(s) it is
 * part of, none (`[]`: it sends nothing), or `operator` (only the operator's
 * bootstrap runs it, with the operator's own credentials; no function is
 * granted it).
 */
export type StoreMethodOperation = StoreOperation | readonly StoreOperation[] | 'operator';

/** The public methods of a store class. */
type MethodsOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];

/**
 * Every public method of store `T` and its declared operations: each store
 * exports one such map, written with `satisfies OperationsOf<Store>`, so a
 * method added without naming its operation (or naming one that is not
 * declared) fails to compile.
 */
export type OperationsOf<T> = Record<MethodsOf<T>, StoreMethodOperation>;
