/**
 * Each stored entity is declared once, in lambda/store/entities/<entity>.ts:
 * its attributes, item key, index key, page position and access patterns.
 * These checks hold the rest of the house to those declarations: the
 * contract's store operations (what the stack grants) are exactly the union
 * of the entities' access patterns, every page cursor's shape is derived
 * from the keys the entity writes, and an item key of one entity is never
 * one of another's.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { STORE_OPERATIONS, type OperationAccess, type StoreOperation, type TableAction } from '../../lambda/contract/store-operations';
import { ANY_ID, ANY_TIME, positionOf, type EntityAccess, type EntityTable } from '../../lambda/store/entities/entity';
import { KEY, KEY_ACCESS, keyTeamIndex, teamKeysPage } from '../../lambda/store/entities/key';
import { VALUE_LOOKUP, VALUE_LOOKUP_ACCESS } from '../../lambda/store/entities/value-lookup';
import { USAGE, USAGE_ACCESS } from '../../lambda/store/entities/usage';
import { USAGE_MONTH, USAGE_MONTH_ACCESS } from '../../lambda/store/entities/usage-month';
import { TEAM, TEAM_ACCESS } from '../../lambda/store/entities/team';
import { IDEMPOTENCY, IDEMPOTENCY_ACCESS } from '../../lambda/store/entities/idempotency';
import { GUESS_COUNTER, GUESS_COUNTER_ACCESS } from '../../lambda/store/entities/guess-counter';
import { FLUSH_CLAIM, FLUSH_CLAIM_ACCESS } from '../../lambda/store/entities/flush-claim';
import { WEBHOOK_ENDPOINT, WEBHOOK_ENDPOINT_ACCESS, teamEndpointsPage } from '../../lambda/store/entities/webhook-endpoint';
import { ENDPOINT_COUNT, ENDPOINT_COUNT_ACCESS } from '../../lambda/store/entities/endpoint-count';
import { DELIVERY_SLOTS, DELIVERY_SLOTS_ACCESS } from '../../lambda/store/entities/delivery-slots';
import { DELIVERY, DELIVERY_ACCESS, endpointDeliveriesPage } from '../../lambda/store/entities/delivery';
import { WEBHOOK_EVENT, WEBHOOK_EVENT_ACCESS } from '../../lambda/store/entities/webhook-event';
import { AUDIT_RECORD, AUDIT_RECORD_ACCESS, auditTeamIndex, keyAuditPage, teamAuditPage } from '../../lambda/store/entities/audit-record';
import { IDENTITY, IDENTITY_ACCESS, teamIdentitiesPage } from '../../lambda/store/entities/identity';
import { IDENTITY_KEY, IDENTITY_KEY_ACCESS } from '../../lambda/store/entities/identity-key';
import { EXTERNAL_ID_CLAIM, EXTERNAL_ID_CLAIM_ACCESS } from '../../lambda/store/entities/identity-external-id';
import { VERIFICATION_MINUTE, VERIFICATION_MINUTE_ACCESS } from '../../lambda/store/entities/verification-minute';
import { VERIFICATION_ROLLUP, VERIFICATION_ROLLUP_ACCESS } from '../../lambda/store/entities/verification-rollup';
import { DIRTY_HOUR, DIRTY_HOUR_ACCESS } from '../../lambda/store/entities/dirty-hour';
import { AUDIT_CHAIN_HEAD, AUDIT_CHAIN_HEAD_ACCESS } from '../../lambda/store/entities/audit-chain-head';
import { AUDIT_CHECKPOINT, AUDIT_CHECKPOINT_ACCESS } from '../../lambda/store/entities/audit-checkpoint';
import { AUDIT_SIGNING_KEY, AUDIT_SIGNING_KEY_ACCESS } from '../../lambda/store/entities/audit-signing-key';
import { decodeCursor, encodeCursor } from '../../lambda/platform/cursor';
import { ApiError } from '../../lambda/contract/errors';
import { newKeyId } from '../../lambda/platform/ids';

/** Every entity with its access patterns. */
const DECLARED: ReadonlyArray<{ name: string; table: EntityTable; key: (...parts: never[]) => Record<string, string>; access: EntityAccess }> = [
  { ...KEY, access: KEY_ACCESS },
  { ...VERIFICATION_MINUTE, access: VERIFICATION_MINUTE_ACCESS },
  { ...VERIFICATION_ROLLUP, access: VERIFICATION_ROLLUP_ACCESS },
  { ...DIRTY_HOUR, access: DIRTY_HOUR_ACCESS },
  { ...VALUE_LOOKUP, access: VALUE_LOOKUP_ACCESS },
  { ...USAGE, access: USAGE_ACCESS },
  { ...USAGE_MONTH, access: USAGE_MONTH_ACCESS },
  { ...TEAM, access: TEAM_ACCESS },
  { ...IDEMPOTENCY, access: IDEMPOTENCY_ACCESS },
  { ...GUESS_COUNTER, access: GUESS_COUNTER_ACCESS },
  { ...FLUSH_CLAIM, access: FLUSH_CLAIM_ACCESS },
  { ...WEBHOOK_ENDPOINT, access: WEBHOOK_ENDPOINT_ACCESS },
  { ...ENDPOINT_COUNT, access: ENDPOINT_COUNT_ACCESS },
  { ...DELIVERY_SLOTS, access: DELIVERY_SLOTS_ACCESS },
  { ...DELIVERY, access: DELIVERY_ACCESS },
  { ...WEBHOOK_EVENT, access: WEBHOOK_EVENT_ACCESS },
  { ...AUDIT_RECORD, access: AUDIT_RECORD_ACCESS },
  { ...IDENTITY, access: IDENTITY_ACCESS },
  { ...EXTERNAL_ID_CLAIM, access: EXTERNAL_ID_CLAIM_ACCESS },
  { ...IDENTITY_KEY, access: IDENTITY_KEY_ACCESS },
  { ...AUDIT_CHAIN_HEAD, access: AUDIT_CHAIN_HEAD_ACCESS },
  { ...AUDIT_CHECKPOINT, access: AUDIT_CHECKPOINT_ACCESS },
  { ...AUDIT_SIGNING_KEY, access: AUDIT_SIGNING_KEY_ACCESS },
];

type Part = 'keyTable' | 'keyTeamIndex' | 'auditTable' | 'auditTeamIndex';

/** An operation's access as the entities declare it, each list sorted. */
function derivedAccess(operation: StoreOperation): Record<Part, TableAction[]> {
  const parts: Record<Part, Set<TableAction>> = { keyTable: new Set(), keyTeamIndex: new Set(), auditTable: new Set(), auditTeamIndex: new Set() };
  for (const entity of DECLARED)
    for (const request of entity.access[operation] ?? []) {
      const onIndex = request === 'Query byTeam';
      parts[`${entity.table}${onIndex ? 'TeamIndex' : 'Table'}` as Part].add(onIndex ? 'dynamodb:Query' : (`dynamodb:${request}` as TableAction));
    }
  return Object.fromEntries(Object.entries(parts).map(([part, actions]) => [part, [...actions].sort()])) as Record<Part, TableAction[]>;
}

describe('entity declarations', () => {
  it('every entity file under lambda/store/entities is declared here', () => {
    const files = readdirSync(path.resolve(__dirname, '../../lambda/store/entities')).filter((file) => file !== 'entity.ts');
    expect(files).toHaveLength(DECLARED.length);
    expect(new Set(DECLARED.map((entity) => entity.name)).size).toBe(DECLARED.length);
  });

  it.each(Object.keys(STORE_OPERATIONS) as StoreOperation[])('%s: the contract grants exactly what the entities declare', (operation) => {
    const declared = STORE_OPERATIONS[operation] as OperationAccess;
    const contract = {
      keyTable: [...(declared.keyTable ?? [])].sort(),
      keyTeamIndex: [...(declared.keyTeamIndex ?? [])].sort(),
      auditTable: [...(declared.auditTable ?? [])].sort(),
      auditTeamIndex: [...(declared.auditTeamIndex ?? [])].sort(),
    };
    expect(derivedAccess(operation)).toEqual(contract);
  });

  it('an entity names only operations the contract declares', () => {
    for (const entity of DECLARED) for (const operation of Object.keys(entity.access)) expect(Object.keys(STORE_OPERATIONS)).toContain(operation);
  });

  it('no two entities of a table can write the same item key', () => {
    // Each entity's key with every part a ULID: a pattern per entity, and no other entity's sample key fits it.
    const id = newKeyId();
    const samples = DECLARED.map((entity) => {
      const parts = Array.from({ length: entity.key.length }, (_, at) => (entity.name === 'guess counter' && at === 1 ? 29_000_000 : id));
      return { entity, key: (entity.key as (...parts: unknown[]) => Record<string, string>)(...parts) };
    });
    for (const a of samples)
      for (const b of samples) if (a !== b && a.entity.table === b.entity.table) expect(`${a.key.pk}|${a.key.sk}`).not.toBe(`${b.key.pk}|${b.key.sk}`);
  });
});

describe('page positions derived from the entities’ keys', () => {
  const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
  const TIME = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

  it('are the exact shapes each listing returns', () => {
    expect(teamKeysPage('t1')).toEqual({
      attributes: { pk: new RegExp(`^KEY#${ULID}$`), sk: 'KEY', gsi1pk: 'TEAM#t1', gsi1sk: new RegExp(`^KEY#${ULID}$`) },
      equal: [['pk', 'gsi1sk']],
    });
    expect(keyAuditPage('K1')).toEqual({ attributes: { pk: 'KEY#K1', sk: new RegExp(`^${TIME}#${ULID}$`) } });
    expect(teamAuditPage('t1')).toEqual({
      attributes: { pk: new RegExp(`^KEY#${ULID}$`), sk: new RegExp(`^${TIME}#${ULID}$`), gsi1pk: 'TEAM#t1', gsi1sk: new RegExp(`^${TIME}#${ULID}$`) },
      equal: [['sk', 'gsi1sk']],
    });
    expect(teamEndpointsPage('t1')).toEqual({
      attributes: { pk: new RegExp(`^WEBHOOK#${ULID}$`), sk: 'WEBHOOK', gsi1pk: 'WEBHOOKS#t1', gsi1sk: new RegExp(`^WEBHOOK#${ULID}$`) },
      equal: [['pk', 'gsi1sk']],
    });
    expect(endpointDeliveriesPage('E1')).toEqual({ attributes: { pk: 'WEBHOOK#E1', sk: new RegExp(`^DELIVERY#${ULID}$`) } });
    expect(teamIdentitiesPage('t1')).toEqual({
      attributes: { pk: new RegExp(`^IDENTITY#${ULID}$`), sk: 'IDENTITY', gsi1pk: 'IDENTITIES#t1', gsi1sk: new RegExp(`^IDENTITY#${ULID}$`) },
      equal: [['pk', 'gsi1sk']],
    });
  });

  it('accept the key of an item the entity writes, and refuse another team’s or a hand-altered one', () => {
    const signing = 'test-signing-key';
    const id = newKeyId();
    const at = new Date(0).toISOString();
    const key = { ...KEY.key(id), ...keyTeamIndex('t1', id) };
    expect(decodeCursor(encodeCursor(key, signing), teamKeysPage('t1'), signing)).toEqual(key);
    expect(() => decodeCursor(encodeCursor(key, signing), teamKeysPage('t2'), signing)).toThrow(ApiError);
    expect(() => decodeCursor(encodeCursor({ ...key, gsi1sk: `KEY#${newKeyId()}` }, signing), teamKeysPage('t1'), signing)).toThrow(ApiError);
    const audit = { ...AUDIT_RECORD.key(id, at, id), ...auditTeamIndex('t1', at, id) };
    expect(decodeCursor(encodeCursor(audit, signing), teamAuditPage('t1'), signing)).toEqual(audit);
  });

  it('treat the holes as holes only: a literal with regular-expression characters stays literal', () => {
    expect(positionOf({ pk: 'A.B*', sk: `x+${ANY_ID}` })).toEqual({ attributes: { pk: 'A.B*', sk: new RegExp(`^x\\+${ULID}$`) } });
    expect(positionOf({ a: ANY_TIME, b: ANY_TIME }).equal).toEqual([['a', 'b']]);
  });
});
