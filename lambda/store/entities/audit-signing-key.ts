/**
 * A key that signed audit checkpoints, `AUDITKEY#<key_id>` / `AUDITKEY`:
 * its public half as PEM and JWK, recorded by the checkpoint job before its
 * first signature and never removed, so every checkpoint ever sent stays
 * checkable. On the team index under `AUDIT_KEYS`, oldest first.
 */
import { STRING, defineEntity, type EntityAccess, type IndexKey, type ItemOf } from './entity';

const ATTRIBUTES = {
  pk: STRING,
  sk: STRING,
  entity: ['audit-signing-key'],
  key_id: STRING,
  pem: STRING,
  jwk: STRING,
  created_at: STRING,
  gsi1pk: STRING,
  gsi1sk: STRING,
} as const;
export type AuditSigningKeyItem = ItemOf<typeof ATTRIBUTES>;

export const AUDIT_SIGNING_KEY = /* @__PURE__ */ defineEntity<AuditSigningKeyItem>()({
  name: 'audit signing key',
  table: 'key',
  key: (keyId: string) => ({ pk: `AUDITKEY#${keyId}`, sk: 'AUDITKEY' }),
  attributes: ATTRIBUTES,
});

/** The team index's partition of the signing keys. */
export const SIGNING_KEYS_PARTITION = 'AUDIT_KEYS';

export const signingKeyIndex = (keyId: string, createdAt: string): IndexKey => ({ gsi1pk: SIGNING_KEYS_PARTITION, gsi1sk: `${createdAt}#${keyId}` });

/** Recorded by the checkpoint job (once per key); listed by the public-key route. */
export const AUDIT_SIGNING_KEY_ACCESS = {
  recordSigningKey: ['PutItem'],
  listSigningKeys: ['Query byTeam'],
} as const satisfies EntityAccess;
