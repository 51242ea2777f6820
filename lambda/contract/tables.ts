/**
 * The one table-schema module. The CDK stack, the local runtime and the tests
 * all build their tables from these definitions, and every item key is made
 * here, so an access pattern has exactly one spelling.
 *
 * Key table (single table):
 *
 * | entity          | pk                | sk                | notes                                         |
 * |-----------------|-------------------|-------------------|-----------------------------------------------|
 * | key             | `KEY#<id>`        | `KEY`             | metadata; tombstone after delete (TTL 90 d)    |
 * | value lookup    | `HASH#<sha256>`   | `HASH`            | one per valid value; auth snapshot of the key |
 * | usage           | `KEY#<id>`        | `USAGE`           | counters and rate windows; never expires       |
 * | ip-rate         | `IPRATE#<source>` | `<minute index>`  | verify endpoint's guess counter; TTL 2 min     |
 * | team            | `TEAM#<team_id>`  | `TEAM`            | usage plan and API Gateway key of the team    |
 * | idempotency     | `IDEMPOTENCY#<caller>#<sha256>` | `IDEMPOTENCY` | a replayable answer; TTL 24 h       |
 * | webhook endpoint| `WEBHOOK#<id>`    | `WEBHOOK`         | URL, filter, sealed secret; team index `WEBHOOKS#<team>` |
 * | delivery        | `WEBHOOK#<id>`    | `DELIVERY#<ulid>` | one attempt; TTL 30 d                          |
 * | delivery slots  | `WEBHOOK#<id>`    | `SLOTS`           | attempts in flight (`slot<n>`: held until); TTL a day after use |
 * | endpoint count  | `TEAM#<team_id>`  | `WEBHOOKS`        | the team's endpoints (the cap of 10)          |
 * | webhook event   | `WHEVENT#<msg id>`| `EVENT`           | a delivered event's body (redelivery); TTL 30 d |
 *
 * GSI `byTeam` (`gsi1pk` = `TEAM#<team_id>`, `gsi1sk` = `KEY#<id>`) lists a
 * team's keys (last-manager check on delete). Usage items are not in it.
 *
 * Audit table: pk `KEY#<key_id>`, sk `<ISO time>#<event id>`; GSI `byTeam`
 * (`gsi1pk` = `TEAM#<team_id>`, `gsi1sk` = the same sort key). Its stream
 * (NEW_IMAGE) feeds the S3 archive.
 */

/** Attribute DynamoDB TTL reads on both tables (epoch seconds). */
export const TTL_ATTRIBUTE = 'ttl';

/** Name of the team index on both tables. */
export const TEAM_INDEX = 'byTeam';

export type AttributeType = 'S' | 'N';

/** Engine-neutral description of a table, mapped to CDK and to CreateTable. */
export interface TableDefinition {
  /** Logical name, also the default physical name locally. */
  readonly logicalName: string;
  readonly partitionKey: { readonly name: string; readonly type: AttributeType };
  readonly sortKey: { readonly name: string; readonly type: AttributeType };
  readonly globalSecondaryIndexes: ReadonlyArray<{
    readonly indexName: string;
    readonly partitionKey: { readonly name: string; readonly type: AttributeType };
    readonly sortKey: { readonly name: string; readonly type: AttributeType };
  }>;
  readonly ttlAttribute: string;
  /** Stream view type, when the table has a stream. */
  readonly stream?: 'NEW_IMAGE';
}

/** A table keyed `pk`/`sk` with the team index (`gsi1pk`/`gsi1sk`) and the TTL attribute. */
function teamIndexedTable(logicalName: string, stream?: 'NEW_IMAGE'): TableDefinition {
  return {
    logicalName,
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    globalSecondaryIndexes: [
      {
        indexName: TEAM_INDEX,
        partitionKey: { name: 'gsi1pk', type: 'S' },
        sortKey: { name: 'gsi1sk', type: 'S' },
      },
    ],
    ttlAttribute: TTL_ATTRIBUTE,
    ...(stream ? { stream } : {}),
  };
}

export const KEY_TABLE: TableDefinition = teamIndexedTable('api-keys');

export const AUDIT_TABLE: TableDefinition = teamIndexedTable('api-key-audit', 'NEW_IMAGE');

/** Primary key of an item in either table. */
export interface ItemKey {
  pk: string;
  sk: string;
}

export const SK_KEY = 'KEY';
export const SK_HASH = 'HASH';
export const SK_USAGE = 'USAGE';
/** Sort-key prefix of a key's monthly usage history items. */
export const SK_USAGE_MONTH_PREFIX = 'USAGE#M#';

/** Item keys of the key table, by access pattern. */
export const keyTableKeys = {
  /** Key metadata (and tombstone) by key id. */
  key: (keyId: string) => ({ pk: `KEY#${keyId}`, sk: SK_KEY }),
  /** Value lookup by the hash of a presented value. */
  valueLookup: (valueHash: string) => ({ pk: `HASH#${valueHash}`, sk: SK_HASH }),
  /** Usage counters of a key; kept permanently. */
  usage: (keyId: string) => ({ pk: `KEY#${keyId}`, sk: SK_USAGE }),
  /** A key's per-day requests of one month (`YYYY-MM`) once older than the usage item keeps; kept permanently. */
  usageMonth: (keyId: string, month: string) => ({ pk: `KEY#${keyId}`, sk: `${SK_USAGE_MONTH_PREFIX}${month}` }),
  /** Team index attributes carried by a key item. */
  teamIndex: (teamId: string, keyId: string) => ({ gsi1pk: `TEAM#${teamId}`, gsi1sk: `KEY#${keyId}` }),
  teamPartition: (teamId: string) => `TEAM#${teamId}`,
  /**
   * The verify endpoint's failed-verification counter of one source (an IPv4
   * address or an IPv6 /64) in one minute (minutes since the epoch).
   */
  ipRateCounter: (source: string, minute: number) => ({ pk: `IPRATE#${source}`, sk: String(minute) }),
  /** A team: its usage plan and its API Gateway key (the usage identifier its requests are throttled by). */
  team: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'TEAM' }),
  /** Local runtime only: a usage key's quota count in one calendar period. */
  planQuota: (usageKeyHash: string, periodId: string) => ({ pk: `PLANQUOTA#${usageKeyHash}`, sk: periodId }),
  /**
   * A create or regenerate answered under an `Idempotency-Key`, by the
   * calling key and the SHA-256 of the idempotency key (TTL 24 h).
   */
  idempotency: (callerKeyId: string, idempotencyKeyHash: string) => ({ pk: `IDEMPOTENCY#${callerKeyId}#${idempotencyKeyHash}`, sk: 'IDEMPOTENCY' }),
  /** A webhook endpoint. */
  webhookEndpoint: (endpointId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: 'WEBHOOK' }),
  /** Team index attributes of a webhook endpoint (a partition of its own, apart from the team's keys). */
  webhookTeamIndex: (teamId: string, endpointId: string) => ({ gsi1pk: `WEBHOOKS#${teamId}`, gsi1sk: `WEBHOOK#${endpointId}` }),
  webhookTeamPartition: (teamId: string) => `WEBHOOKS#${teamId}`,
  /** How many endpoints a team has (the cap). */
  webhookCount: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'WEBHOOKS' }),
  /** The endpoint's delivery slots: the attempts in flight to it (at most ENDPOINT_CONCURRENCY). */
  deliverySlots: (endpointId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: 'SLOTS' }),
  /** When the next flush of a platform stage's authorizer cache may start (`<restApiId>:<stage>`). */
  cacheFlush: (stage: string) => ({ pk: `FLUSH#${stage}`, sk: 'FLUSH' }),
  /** One delivery attempt of an endpoint (ULID sort key: oldest first). */
  delivery: (endpointId: string, deliveryId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: `${SK_DELIVERY_PREFIX}${deliveryId}` }),
  /** A delivered event, kept for redelivery. */
  webhookEvent: (messageId: string) => ({ pk: `WHEVENT#${messageId}`, sk: 'EVENT' }),
} as const;

/** Sort-key prefix of an endpoint's delivery items. */
export const SK_DELIVERY_PREFIX = 'DELIVERY#';

/** `entity` attribute of the verify endpoint's guess counters. */
export const IP_RATE_ENTITY = 'ip-rate';

/** Item keys of the audit table. */
export const auditTableKeys = {
  event: (keyId: string, at: string, eventId: string) => ({ pk: `KEY#${keyId}`, sk: `${at}#${eventId}` }),
  teamIndex: (teamId: string, at: string, eventId: string) => ({ gsi1pk: `TEAM#${teamId}`, gsi1sk: `${at}#${eventId}` }),
  /** What was done to a webhook endpoint: under the endpoint, and a team partition of its own on the index. */
  webhookEvent: (endpointId: string, at: string, eventId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: `${at}#${eventId}` }),
  webhookTeamIndex: (teamId: string, at: string, eventId: string) => ({ gsi1pk: `WEBHOOKS#${teamId}`, gsi1sk: `${at}#${eventId}` }),
} as const;

/** A ULID, as key ids and audit event ids are written. */
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
/** An audit sort key: the event's ISO time (as `Date#toISOString` writes it) and its id. */
const AUDIT_SORT_KEY = new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#${ULID}$`);
const KEY_PARTITION = new RegExp(`^KEY#${ULID}$`);
const WEBHOOK_PARTITION = new RegExp(`^WEBHOOK#${ULID}$`);

/**
 * The exact key of the last item of a page, for each paged query: each
 * attribute a literal or a pattern, and the attributes that must be equal.
 * A page cursor is accepted only in exactly this shape (lambda/platform/cursor.ts),
 * so what reaches DynamoDB as ExclusiveStartKey is always a key the query
 * itself could have returned.
 */
export interface PositionShape {
  readonly attributes: Readonly<Record<string, string | RegExp>>;
  readonly equal?: readonly (readonly [string, string])[];
}

export const pagePositions = {
  /** A team's keys, on the team index of the key table. */
  teamKeys: (teamId: string): PositionShape => ({
    attributes: { pk: KEY_PARTITION, sk: SK_KEY, gsi1pk: keyTableKeys.teamPartition(teamId), gsi1sk: KEY_PARTITION },
    equal: [['pk', 'gsi1sk']],
  }),
  /** One key's audit events, on the audit table. */
  keyAudit: (keyId: string): PositionShape => ({ attributes: { pk: `KEY#${keyId}`, sk: AUDIT_SORT_KEY } }),
  /** A team's audit events, on the team index of the audit table. */
  teamAudit: (teamId: string): PositionShape => ({
    attributes: { pk: KEY_PARTITION, sk: AUDIT_SORT_KEY, gsi1pk: keyTableKeys.teamPartition(teamId), gsi1sk: AUDIT_SORT_KEY },
    equal: [['sk', 'gsi1sk']],
  }),
  /** A team's webhook endpoints, on the team index of the key table. */
  teamWebhooks: (teamId: string): PositionShape => ({
    attributes: { pk: WEBHOOK_PARTITION, sk: 'WEBHOOK', gsi1pk: keyTableKeys.webhookTeamPartition(teamId), gsi1sk: WEBHOOK_PARTITION },
    equal: [['pk', 'gsi1sk']],
  }),
  /** One endpoint's deliveries, newest first. */
  endpointDeliveries: (endpointId: string): PositionShape => ({
    attributes: { pk: `WEBHOOK#${endpointId}`, sk: new RegExp(`^${SK_DELIVERY_PREFIX}${ULID}$`) },
  }),
} as const;

/** Every attribute that appears in a key schema of the table or its indexes. */
export function keyAttributes(table: TableDefinition): Array<{ name: string; type: AttributeType }> {
  const all = [table.partitionKey, table.sortKey];
  for (const index of table.globalSecondaryIndexes) all.push(index.partitionKey, index.sortKey);
  const seen = new Map<string, AttributeType>();
  for (const attribute of all) seen.set(attribute.name, attribute.type);
  return [...seen].map(([name, type]) => ({ name, type }));
}
