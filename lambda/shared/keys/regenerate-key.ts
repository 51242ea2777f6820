/**
 * Regenerating a key's value, keeping its configuration.
 *
 * Race-freedom: the whole change is one TransactWriteItems whose key-item
 * condition requires the generation read at the start (compare-and-set).
 * Of concurrent regenerates (or a regenerate racing a delete) exactly one
 * commits; the others fail their condition and get 409 (or 404 when a delete
 * won). The old value becomes a `previous` lookup valid until
 * `transition_ends_at`, or is deleted in the same transaction when revoked
 * at once.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, ErrorCode } from '../../contract/errors';
import { assertEnvironmentReach, notFound } from '../auth/authorization';
import { AuditEventType, auditItem } from '../audit/audit-events';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { actorOf, type RequestMeta } from '../http/event';
import { generateRegeneratedValue, hashKeyValue, keyPrefixOf, lastFourOf, shortPrefix } from './key-values';
import { valueLookupItem } from './key-records';
import { type TransactItem, cancellationReasons, getKeyItem, getLiveKey, inLiveTransition } from './key-repository';
import { describeError, log } from '../platform/log';
import type { KeyItem } from './model';
import type { RuntimeDeps } from '../platform/runtime';
import type { RevocationScheduler } from '../rotation/revocation-scheduler';
import { keyTableKeys } from '../../contract/tables';
import { readUsage, usageFigures } from '../usage/usage';
import type { VerifiedKey } from '../auth/verify';
import type { RegenerateKeyRequest } from '../http/schemas/regenerate-key';

/** A previous value's lookup lingers this long past its end, for clean-up by TTL if nothing else ran. */
const PREVIOUS_LOOKUP_TTL_MARGIN_MS = MS_PER_DAY;

export interface RegenerateDeps extends RuntimeDeps {
  /** Schedules the old value's clean-up at transition end (absent: no schedule). */
  scheduler?: RevocationScheduler;
}

export interface RegenerateResponse {
  success: true;
  new_key: string;
  key_info: {
    id: string;
    name: string;
    key_type: KeyItem['type'];
    environment: KeyItem['environment'];
    key_prefix: string;
    last_four: string;
    transition_ends_at: string;
    regenerated_at: string;
  };
  migration_info: {
    old_key_expires_at: string;
    grace_period_days: number;
    both_keys_valid: boolean;
  };
}

export async function regenerateKey(
  deps: RegenerateDeps,
  caller: VerifiedKey,
  input: RegenerateKeyRequest,
  meta: RequestMeta,
): Promise<RegenerateResponse> {
  const now = deps.clock.now();
  const key = await getLiveKey(deps, input.key_id, caller.team_id, now);
  if (!key || !key.current_hash) throw notFound(input.key_id);
  assertEnvironmentReach(caller, key.environment);
  if (inLiveTransition(key, now)) {
    throw new ApiError(
      ErrorCode.CONFLICT,
      `The key is already in a transition period until ${key.transition_ends_at}; regenerate it after that.`,
      [{ field: 'key_id', issue: `in transition until ${key.transition_ends_at}` }],
    );
  }

  const revokeNow = input.revoke_immediately;
  const graceDays = revokeNow ? 0 : input.grace_period_days;
  const regeneratedAt = now.toISOString();
  const endsAt = new Date(now.getTime() + graceDays * MS_PER_DAY).toISOString();
  const generation = key.generation + 1;
  const value = generateRegeneratedValue(key.type, key.environment, key.id);
  const newHash = hashKeyValue(value, deps.pepper);
  const usage = await readUsage(deps.db, deps.keyTableName, key.id, now);

  const updated: KeyItem = {
    ...key,
    generation,
    current_hash: newHash,
    key_prefix: keyPrefixOf(value),
    last_four: lastFourOf(value),
    regenerated_at: regeneratedAt,
    transition_ends_at: endsAt,
  };
  const transition = revokeNow ? undefined : { endsAt, generation };

  // Scheduled before the commit: if scheduling fails nothing has changed; a
  // schedule whose transaction then fails finds nothing to do when it fires.
  if (transition && deps.scheduler) {
    try {
      await deps.scheduler.schedule({ keyId: key.id, generation, at: endsAt });
    } catch (error) {
      log.error('could not schedule the end of a grace period', {
        key_id: key.id,
        generation,
        request_id: meta.requestId,
        ...describeError(error),
      });
      throw new ApiError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'Could not schedule the end of the grace period; nothing was changed. Retry shortly.',
      );
    }
  }

  const table = deps.keyTableName;
  const keySet = [
    'generation = :generation',
    'current_hash = :newHash',
    'key_prefix = :prefix',
    'last_four = :lastFour',
    'regenerated_at = :now',
    'transition_ends_at = :endsAt',
  ];
  const values: Record<string, unknown> = {
    ':expected': key.generation,
    ':active': 'active',
    ':generation': generation,
    ':newHash': newHash,
    ':prefix': updated.key_prefix,
    ':lastFour': updated.last_four,
    ':now': regeneratedAt,
    ':endsAt': endsAt,
  };
  let keyUpdate = `SET ${keySet.join(', ')}`;
  if (transition) {
    keyUpdate += ', previous_hash = :oldHash, previous_last_four = :oldLastFour, previous_key_prefix = :oldPrefix';
    values[':oldHash'] = key.current_hash;
    values[':oldLastFour'] = key.last_four;
    values[':oldPrefix'] = key.key_prefix;
  } else {
    keyUpdate += ' REMOVE previous_hash, previous_last_four, previous_key_prefix';
  }

  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: keyTableKeys.key(key.id),
        UpdateExpression: keyUpdate,
        ConditionExpression: '#state = :active AND generation = :expected',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    },
    {
      Put: {
        TableName: table,
        Item: valueLookupItem(updated, newHash, 'current', generation, transition),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (transition) {
    items.push({
      Update: {
        TableName: table,
        Key: keyTableKeys.valueLookup(key.current_hash),
        UpdateExpression:
          'SET slot = :previous, valid_until = :endsAt, transition_ends_at = :endsAt, transition_generation = :generation, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':previous': 'previous',
          ':endsAt': endsAt,
          ':generation': generation,
          ':keyId': key.id,
          ':ttl': epochSeconds(new Date(Date.parse(endsAt) + PREVIOUS_LOOKUP_TTL_MARGIN_MS)),
        },
      },
    });
  } else {
    items.push({ Delete: { TableName: table, Key: keyTableKeys.valueLookup(key.current_hash) } });
  }
  // A previous value from an earlier, finished transition that clean-up has not removed yet.
  if (key.previous_hash) {
    items.push({ Delete: { TableName: table, Key: keyTableKeys.valueLookup(key.previous_hash) } });
  }
  items.push({
    Put: {
      TableName: deps.auditTableName,
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: auditItem({
        event_type: AuditEventType.KEY_REGENERATED,
        occurred_at: regeneratedAt,
        key_id: key.id,
        team_id: key.team_id,
        actor: actorOf(caller, meta),
        key: { name: key.name, type: key.type, environment: key.environment },
        generation,
        old_value: { key_prefix: key.key_prefix, last_four: key.last_four },
        new_value: { key_prefix: updated.key_prefix, last_four: updated.last_four },
        grace_period_days: graceDays,
        revoke_immediately: revokeNow,
        transition_ends_at: endsAt,
        usage: usageFigures(usage),
      }),
    },
  });

  try {
    await deps.db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    // Lost a race: another regenerate or a delete committed first.
    const now2 = deps.clock.now();
    const current = await getKeyItem(deps, key.id);
    if (!current || current.state !== 'active' || current.team_id !== caller.team_id) throw notFound(input.key_id);
    throw new ApiError(
      ErrorCode.CONFLICT,
      inLiveTransition(current, now2)
        ? `The key is already in a transition period until ${current.transition_ends_at}; regenerate it after that.`
        : 'The key changed while this request was being processed; retry.',
    );
  }

  return {
    success: true,
    new_key: value,
    key_info: {
      id: key.id,
      name: key.name,
      key_type: key.type,
      environment: key.environment,
      key_prefix: shortPrefix(key.type, key.environment),
      last_four: updated.last_four,
      transition_ends_at: endsAt,
      regenerated_at: regeneratedAt,
    },
    migration_info: {
      old_key_expires_at: endsAt,
      grace_period_days: graceDays,
      both_keys_valid: !revokeNow,
    },
  };
}
