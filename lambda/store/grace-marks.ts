/**
 * The writes of a use-driven grace (domain/grace-modes.ts) beside
 * authentication: the new value's first VALID use marked, once, on the old
 * value's lookup and on the key item (under `first_use` both then carry the
 * decided end: the lookup's `valid_until`, the key's `transition_ends_at`).
 * Pure builders; ValueLookupStore sends them.
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { UseDrivenGrace } from '../domain/grace-modes';
import { MS_PER_MINUTE } from '../platform/clock';
import { KEY } from './entities/key';
import { VALUE_LOOKUP } from './entities/value-lookup';

/** The new value of a use-driven transition used for the first time (as far as this process knows). */
export interface NewValueUse {
  keyId: string;
  /** The generation of the new value (the transition's). */
  generation: number;
  /** The old value's hash: its lookup is the item authentication reads. */
  oldHash: string;
  grace: UseDrivenGrace;
  /** The hard maximum (epoch ms). */
  hardEnd: number;
  /** The use (epoch ms). */
  at: number;
}

/**
 * The two writes marking `use`: on the old value's lookup (what
 * authentication reads) and on the key item (what reads and the clean-up
 * read). Each is conditional on the transition still being this one and on
 * not being marked yet, so of racing first uses one wins each item; they are
 * independent (not a transaction: a process that stopped between them
 * leaves the other to the next process's first use, and the two first uses
 * then differ by that much, the lookup's deciding).
 */
export function newValueUseWrites(use: NewValueUse, table: string): [UpdateCommandInput, UpdateCommandInput] {
  const usedAt = new Date(use.at).toISOString();
  const end = use.at + use.grace.grace_minutes * MS_PER_MINUTE;
  // Under `first_use` the end is known now: it becomes the old value's end wherever authentication and reads look.
  const decided = use.grace.grace_mode === 'first_use' && end < use.hardEnd ? new Date(end).toISOString() : undefined;
  const values = { ':at': usedAt, ':g': use.generation, ...(decided ? { ':end': decided } : {}) };
  return [
    {
      TableName: table,
      Key: VALUE_LOOKUP.key(use.oldHash),
      UpdateExpression: `SET new_value_first_used_at = :at${decided ? ', valid_until = :end' : ''}`,
      ConditionExpression: 'attribute_exists(pk) AND transition_generation = :g AND attribute_not_exists(new_value_first_used_at)',
      ExpressionAttributeValues: values,
    },
    {
      TableName: table,
      Key: KEY.key(use.keyId),
      // Not a change of the key's configuration: its revision (ETag) stays.
      UpdateExpression: `SET new_value_first_used_at = :at${decided ? ', transition_ends_at = :end' : ''}`,
      ConditionExpression: 'generation = :g AND previous_hash = :oldHash AND attribute_not_exists(new_value_first_used_at)',
      ExpressionAttributeValues: { ...values, ':oldHash': use.oldHash },
    },
  ];
}
