/**
 * A key joining or leaving an identity, as transaction items: the
 * identity's `key_count` moved (joining also checks that the identity exists
 * in the key's team, so another team's identity is refused exactly as an
 * unknown one) and the membership item written or removed. They go into the
 * same transaction as the key's own change, so `key_count` is always the
 * number of keys naming the identity, and an identity is deleted only when
 * it is 0 (identity-store.ts).
 */
import type { KeyItem } from '../domain/model';
import { ABSENT, type TransactItem } from './transactions';
import { IDENTITY } from './entities/identity';
import { IDENTITY_KEY, identityKeyItem } from './entities/identity-key';

/** Key `keyId` of team `teamId` joins identity `identityId`: the first item fails its condition when the identity is not the team's. */
export function attachKeyItems(table: string, identityId: string, teamId: string, keyId: string): TransactItem[] {
  return [
    {
      Update: {
        TableName: table,
        Key: IDENTITY.key(identityId),
        UpdateExpression: 'ADD key_count :one',
        ConditionExpression: 'attribute_exists(pk) AND team_id = :team',
        ExpressionAttributeValues: { ':one': 1, ':team': teamId },
      },
    },
    { Put: { TableName: table, Item: identityKeyItem(identityId, keyId), ConditionExpression: ABSENT } },
  ];
}

/** Key `keyId` leaves identity `identityId`. */
export function detachKeyItems(table: string, identityId: string, keyId: string): TransactItem[] {
  return [
    {
      Update: {
        TableName: table,
        Key: IDENTITY.key(identityId),
        UpdateExpression: 'ADD key_count :minusOne',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
    { Delete: { TableName: table, Key: IDENTITY_KEY.key(identityId, keyId), ConditionExpression: 'attribute_exists(pk)' } },
  ];
}

/** Whether setting `key`'s identity to `next` (undefined: no change; null: none) changes it. */
const movesIdentity = (key: Pick<KeyItem, 'identity_id'>, next: string | null | undefined): next is string | null =>
  next !== undefined && next !== (key.identity_id ?? null);

/** The identity `key` joins when its identity is set to `next`; undefined when it joins none. */
export const joinedIdentity = (key: Pick<KeyItem, 'identity_id'>, next: string | null | undefined): string | undefined =>
  movesIdentity(key, next) && next !== null ? next : undefined;

/**
 * The items of a change of `key`'s identity to `next` (undefined: no change;
 * null: none): the old one left, the new one joined (its condition item
 * last but one, so a refusal is found at `length - 2`).
 */
export function identityMoveItems(key: Pick<KeyItem, 'id' | 'team_id' | 'identity_id'>, next: string | null | undefined, table: string): TransactItem[] {
  if (!movesIdentity(key, next)) return [];
  const joined = joinedIdentity(key, next);
  return [
    ...(key.identity_id ? detachKeyItems(table, key.identity_id, key.id) : []),
    ...(joined === undefined ? [] : attachKeyItems(table, joined, key.team_id, key.id)),
  ];
}
