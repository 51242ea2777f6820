/**
 * Deleting a key: every value stops authenticating at once (both lookups are
 * deleted in the same transaction), the key item becomes a hash-free
 * tombstone that DynamoDB TTL removes after 90 days, usage stays forever.
 *
 * Race-freedom: the key-item condition requires the generation read at the
 * start, so a concurrent regenerate or delete makes this one fail (409/404)
 * rather than leave a working value behind. When the key is a manager, the
 * transaction also checks that another live manager key still exists, so two
 * concurrent deletes cannot lock a team out.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, ErrorCode } from '../../contract/errors';
import { assertEnvironmentReach, notFound } from '../auth/authorization';
import { AuditEventType, auditItem } from '../audit/audit-events';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { actorOf, type RequestMeta } from '../http/event';
import { type TransactItem, cancellationReasons, getKeyItem, getLiveKey, inLiveTransition, otherLiveManagers } from './key-repository';
import type { KeyItem } from './model';
import { KEY_METADATA_RETENTION_DAYS } from '../../contract/retention';
import type { RuntimeDeps } from '../platform/runtime';
import type { RevocationScheduler } from '../rotation/revocation-scheduler';
import type { DeleteKeyRequest } from '../http/schemas/delete-key';
import { keyTableKeys } from '../../contract/tables';
import { readUsage, usageFigures } from '../usage/usage';
import type { VerifiedKey } from '../auth/verify';
import { log, describeError } from '../platform/log';

export interface DeleteDeps extends RuntimeDeps {
  scheduler?: RevocationScheduler;
}

export interface DeleteResponse {
  success: true;
  message: string;
  deleted_key: {
    id: string;
    name: string;
    key_type: KeyItem['type'];
    environment: KeyItem['environment'];
    last_four: string;
    created_at: string;
    deleted_at: string;
    deleted_by: string;
  };
  audit_info: {
    reason: string | null;
    last_used_at: string | null;
    total_requests: number;
    usage_last_30_days: number;
  };
}

const LAST_MANAGER_MESSAGE =
  'This is the team’s last active secret key holding keys.manage; deleting it would lock the team out. Create another manager key first.';

export async function deleteKey(
  deps: DeleteDeps,
  caller: VerifiedKey,
  input: DeleteKeyRequest,
  meta: RequestMeta,
): Promise<DeleteResponse> {
  const now = deps.clock.now();
  const key = await getLiveKey(deps, input.key_id, caller.team_id, now);
  if (!key) throw notFound(input.key_id);
  assertEnvironmentReach(caller, key.environment);

  // Keep the team manageable: another live manager key that can reach this
  // key's environment must survive this delete.
  let survivor: KeyItem | undefined;
  if (key.is_manager) {
    const others = await otherLiveManagers(deps, key.team_id, key.id, key.environment, now);
    survivor = others.find((other) => other.id === caller.id) ?? others[0];
    if (!survivor) {
      throw new ApiError(ErrorCode.CONFLICT, LAST_MANAGER_MESSAGE, [{ field: 'key_id', issue: 'last manager key of the team' }]);
    }
  }

  const deletedAt = now.toISOString();
  const reason = input.reason?.trim() ? input.reason.trim() : null;
  const usage = await readUsage(deps.db, deps.keyTableName, key.id, now);
  const transitionLive = inLiveTransition(key, now);
  const table = deps.keyTableName;

  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: keyTableKeys.key(key.id),
        UpdateExpression:
          'SET #state = :deleted, is_active = :false, deleted_at = :now, deleted_by = :by, deletion_reason = :reason, #ttl = :ttl ' +
          'REMOVE current_hash, previous_hash, previous_last_four, previous_key_prefix',
        ConditionExpression: '#state = :active AND generation = :expected',
        ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':deleted': 'deleted',
          ':active': 'active',
          ':false': false,
          ':now': deletedAt,
          ':by': caller.created_by,
          ':reason': reason,
          ':ttl': epochSeconds(new Date(now.getTime() + KEY_METADATA_RETENTION_DAYS * MS_PER_DAY)),
          ':expected': key.generation,
        },
      },
    },
  ];
  if (key.current_hash) items.push({ Delete: { TableName: table, Key: keyTableKeys.valueLookup(key.current_hash) } });
  if (key.previous_hash) items.push({ Delete: { TableName: table, Key: keyTableKeys.valueLookup(key.previous_hash) } });
  if (survivor) {
    items.push({
      ConditionCheck: {
        TableName: table,
        Key: keyTableKeys.key(survivor.id),
        ConditionExpression: '#state = :active AND is_manager = :true AND is_active = :true AND environment = :environment',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':active': 'active', ':true': true, ':environment': survivor.environment },
      },
    });
  }
  items.push({
    Put: {
      TableName: deps.auditTableName,
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: auditItem({
        event_type: AuditEventType.KEY_DELETED,
        occurred_at: deletedAt,
        key_id: key.id,
        team_id: key.team_id,
        actor: actorOf(caller, meta),
        key: { name: key.name, type: key.type, environment: key.environment, created_at: key.created_at },
        last_four: key.last_four,
        reason,
        revoked_values: transitionLive ? 2 : 1,
        session: { key_id: caller.id, request_id: meta.requestId },
        usage: usageFigures(usage),
      }),
    },
  });

  try {
    await deps.db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const current = await getKeyItem(deps, key.id);
    if (!current || current.state !== 'active') throw notFound(input.key_id);
    const survivorIndex = survivor ? items.findIndex((item) => item.ConditionCheck !== undefined) : -1;
    if (survivorIndex >= 0 && reasons[survivorIndex] === 'ConditionalCheckFailed') {
      throw new ApiError(ErrorCode.CONFLICT, LAST_MANAGER_MESSAGE, [{ field: 'key_id', issue: 'last manager key of the team' }]);
    }
    throw new ApiError(ErrorCode.CONFLICT, 'The key changed while this request was being processed; retry.');
  }

  // Best effort: a schedule that still fires finds a deleted key and does nothing.
  if (transitionLive && deps.scheduler) {
    await deps.scheduler.cancel({ keyId: key.id, generation: key.generation }).catch((error: unknown) => {
      log.warn('could not cancel revocation schedule', { key_id: key.id, request_id: meta.requestId, ...describeError(error) });
    });
  }

  return {
    success: true,
    message: 'The API key has been permanently deleted; every value of it stopped working immediately.',
    deleted_key: {
      id: key.id,
      name: key.name,
      key_type: key.type,
      environment: key.environment,
      last_four: key.last_four,
      created_at: key.created_at,
      deleted_at: deletedAt,
      deleted_by: caller.created_by,
    },
    audit_info: {
      reason,
      last_used_at: usage.last_used_at,
      total_requests: usage.total_requests,
      usage_last_30_days: usage.usage_last_30_days,
    },
  };
}
