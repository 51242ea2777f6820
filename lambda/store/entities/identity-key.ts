/**
 * A key's membership of an identity: `IDENTITY#<identity>` / `KEY#<key>`, in
 * the identity's own partition, written and removed in the same transaction
 * that sets or clears the key's `identity_id` and moves the identity's
 * `key_count`. Deleting an identity with `detach_keys` reads them (one
 * strongly consistent Query of the partition) to find its keys.
 */
import { STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';

const MEMBERSHIP_ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['identity-key'], identity_id: STRING, key_id: STRING } as const;

/** One key of an identity. */
export type IdentityKeyItem = ItemOf<typeof MEMBERSHIP_ATTRIBUTES>;

export const IDENTITY_KEY = /* @__PURE__ */ defineEntity<IdentityKeyItem>()({
  name: 'identity key',
  table: 'key',
  key: (identityId: string, keyId: string) => ({ pk: `IDENTITY#${identityId}`, sk: `KEY#${keyId}` }),
  attributes: MEMBERSHIP_ATTRIBUTES,
});

/** The sort-key prefix of an identity's memberships (its partition also holds the identity item). */
export const IDENTITY_KEY_PREFIX = 'KEY#';

/** The membership item of key `keyId` in identity `identityId`. */
export const identityKeyItem = (identityId: string, keyId: string): IdentityKeyItem => ({
  ...IDENTITY_KEY.key(identityId, keyId),
  entity: 'identity-key',
  identity_id: identityId,
  key_id: keyId,
});

/** The access patterns on memberships. */
export const IDENTITY_KEY_ACCESS = {
  createKey: ['PutItem'],
  updateKey: ['PutItem', 'DeleteItem'],
  tombstoneKey: ['DeleteItem'],
  listIdentityKeys: ['Query'],
} as const satisfies EntityAccess;
