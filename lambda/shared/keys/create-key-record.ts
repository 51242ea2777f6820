/**
 * Creating a key: the key item, its value lookup, its usage item and the
 * `key.created` audit record are written in ONE TransactWriteItems, so a key
 * either exists completely (and is audited) or not at all.
 */
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../platform/clock';
import { newKeyId } from '../platform/ids';
import { generateCreatedValue, hashKeyValue, keyPrefixOf, lastFourOf } from './key-values';
import { keyTableKeys } from '../../contract/tables';
import type { KeyConfiguration, KeyItem } from './model';
import { isManager, valueLookupItem } from './key-records';
import { newUsageItem } from '../usage/usage';
import { AuditEventType, auditItem, type AuditActor } from '../audit/audit-events';

export interface KeyStoreDeps {
  db: DynamoDBDocumentClient;
  keyTableName: string;
  auditTableName: string;
  clock: Clock;
  pepper?: string;
}

/** A fully validated and authorized request to create a key. */
export interface NewKeySpec extends KeyConfiguration {
  description: string;
}

/** The API key resource as the create response shows it (with the value, once). */
export interface CreatedKey extends KeyConfiguration {
  id: string;
  key: string;
  key_prefix: string;
  last_four: string;
  is_active: boolean;
  created_at: string;
  last_used_at: string | null;
  description: string;
}

/** Writes a new key and its audit record atomically; returns the resource with its value. */
export async function createKeyRecord(
  deps: KeyStoreDeps,
  spec: NewKeySpec,
  actor: AuditActor,
  via: 'api' | 'bootstrap',
): Promise<CreatedKey> {
  const id = newKeyId();
  const value = generateCreatedValue(spec.type, spec.environment, spec.team_id);
  const createdAt = deps.clock.now().toISOString();
  const key: KeyItem = {
    ...keyTableKeys.key(id),
    ...keyTableKeys.teamIndex(spec.team_id, id),
    entity: 'key',
    id,
    team_id: spec.team_id,
    name: spec.name,
    type: spec.type,
    environment: spec.environment,
    scopes: spec.scopes,
    domains: spec.domains,
    ip_whitelist: spec.ip_whitelist,
    rate_limit: spec.rate_limit,
    is_active: true,
    expires_at: spec.expires_at,
    created_by: spec.created_by,
    created_at: createdAt,
    description: spec.description,
    state: 'active',
    generation: 1,
    key_prefix: keyPrefixOf(value),
    last_four: lastFourOf(value),
    current_hash: hashKeyValue(value, deps.pepper),
    is_manager: isManager(spec.type, spec.scopes),
  };
  const audit = auditItem({
    event_type: AuditEventType.KEY_CREATED,
    occurred_at: createdAt,
    key_id: id,
    team_id: spec.team_id,
    actor,
    via,
    key: {
      name: spec.name,
      type: spec.type,
      environment: spec.environment,
      scopes: spec.scopes,
      domains: spec.domains,
      ip_whitelist: spec.ip_whitelist,
      rate_limit: spec.rate_limit,
      expires_at: spec.expires_at,
      key_prefix: key.key_prefix,
      last_four: key.last_four,
    },
  });
  const absent = 'attribute_not_exists(pk)';
  await deps.db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: deps.keyTableName, Item: key, ConditionExpression: absent } },
        {
          Put: {
            TableName: deps.keyTableName,
            Item: valueLookupItem(key, key.current_hash as string, 'current', 1),
            ConditionExpression: absent,
          },
        },
        { Put: { TableName: deps.keyTableName, Item: newUsageItem(id, spec.team_id), ConditionExpression: absent } },
        { Put: { TableName: deps.auditTableName, Item: audit, ConditionExpression: absent } },
      ],
    }),
  );
  return {
    id,
    name: key.name,
    key: value,
    key_prefix: key.key_prefix,
    last_four: key.last_four,
    type: key.type,
    environment: key.environment,
    team_id: key.team_id,
    scopes: key.scopes,
    domains: key.domains,
    ip_whitelist: key.ip_whitelist,
    rate_limit: key.rate_limit,
    is_active: key.is_active,
    expires_at: key.expires_at,
    created_by: key.created_by,
    created_at: key.created_at,
    last_used_at: null,
    description: key.description,
  };
}
