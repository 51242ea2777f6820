/**
 * The tables as synthesis needs them: the CDK stack, the local runtime and
 * the tests all build their tables from these definitions. What lives in
 * them is declared entity by entity in lambda/store/entities/<entity>.ts
 * (attributes, item key, index key, page position, access patterns), the one
 * spelling of each; the table below is their summary.
 *
 * Key table (single table):
 *
 * | entity          | pk                | sk                | notes                                         |
 * |-----------------|-------------------|-------------------|-----------------------------------------------|
 * | key             | `KEY#<id>`        | `KEY`             | metadata; tombstone after delete (TTL 90 d)    |
 * | value lookup    | `HASH#<sha256>`   | `HASH`            | one per valid value; auth snapshot of the key |
 * | usage           | `KEY#<id>`        | `USAGE`           | counters and rate windows; never expires       |
 * | usage month     | `KEY#<id>`        | `USAGE#M#<YYYY-MM>` | days older than the usage item keeps; never expires |
 * | guess counter   | `IPRATE#<source>` | `<minute index>`  | verify endpoint's guess counter; TTL 2 min     |
 * | team            | `TEAM#<team_id>`  | `TEAM`            | usage plan and API Gateway key of the team    |
 * | idempotency     | `IDEMPOTENCY#<caller>#<sha256>` | `IDEMPOTENCY` | a replayable answer; TTL 24 h       |
 * | webhook endpoint| `WEBHOOK#<id>`    | `WEBHOOK`         | URL, filter, sealed secret; team index `WEBHOOKS#<team>` |
 * | delivery        | `WEBHOOK#<id>`    | `DELIVERY#<ulid>` | one attempt; TTL 30 d                          |
 * | delivery slots  | `WEBHOOK#<id>`    | `SLOTS`           | attempts in flight (`slot<n>`: held until); TTL a day after use |
 * | endpoint count  | `TEAM#<team_id>`  | `WEBHOOKS`        | the team's endpoints (the cap of 10)          |
 * | webhook event   | `WHEVENT#<msg id>`| `EVENT`           | a delivered event's body (redelivery); TTL 30 d |
 * | flush claim     | `FLUSH#<api>:<stage>` | `FLUSH`       | when a stage's authorizer cache may next be flushed |
 * | plan quota      | `PLANQUOTA#<sha256>` | `<period>`     | local runtime only (local/usage-plans.ts): a usage plan's quota count |
 *
 * GSI `byTeam` (`gsi1pk` = `TEAM#<team_id>`, `gsi1sk` = `KEY#<id>`) lists a
 * team's keys (last-manager check on delete). Usage items are not in it.
 *
 * Audit table: pk `KEY#<key_id>`, sk `<ISO time>#<event id>`; GSI `byTeam`
 * (`gsi1pk` = `TEAM#<team_id>`, `gsi1sk` = the same sort key); sparse GSI
 * `byChain` (`gsi2pk` = `CHAIN#<team_id>`, `gsi2sk` = the record's `seq`,
 * 12 digits): every record of a team's hash chain in order. Its stream
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

/** Name of the audit table's chain index: a team's chained records in seq order. */
export const CHAIN_INDEX = 'byChain';

/**
 * A table keyed `pk`/`sk` with the team index (`gsi1pk`/`gsi1sk`), `more`
 * indexes and the TTL attribute. Without side effects: a bundle that never
 * reads a table's definition (every function: only synthesis, the local
 * runtime and the tests do) carries neither.
 */
/* @__NO_SIDE_EFFECTS__ */
function teamIndexedTable(logicalName: string, stream?: 'NEW_IMAGE', more: TableDefinition['globalSecondaryIndexes'] = []): TableDefinition {
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
      ...more,
    ],
    ttlAttribute: TTL_ATTRIBUTE,
    ...(stream ? { stream } : {}),
  };
}

export const KEY_TABLE: TableDefinition = /* @__PURE__ */ teamIndexedTable('api-keys');

export const AUDIT_TABLE: TableDefinition = /* @__PURE__ */ teamIndexedTable('api-key-audit', 'NEW_IMAGE', [
  { indexName: CHAIN_INDEX, partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' } },
]);

/** Primary key of an item in either table. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** Every attribute that appears in a key schema of the table or its indexes. */
export function keyAttributes(table: TableDefinition): Array<{ name: string; type: AttributeType }> {
  const all = [table.partitionKey, table.sortKey];
  for (const index of table.globalSecondaryIndexes) all.push(index.partitionKey, index.sortKey);
  const seen = new Map<string, AttributeType>();
  for (const attribute of all) seen.set(attribute.name, attribute.type);
  return [...seen].map(([name, type]) => ({ name, type }));
}
