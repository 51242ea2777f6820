/**
 * A key's usage: `KEY#<id>` / `USAGE`, its counters, its last 32 days and its
 * rate windows; written by every authenticated use, never expires.
 */
import type { UsageItem } from '../../domain/model';
import { COUNTS, NUMBER, OPTIONAL_STRING, STRING, STRING_OR_NULL, defineEntity, type EntityAccess } from './entity';

export const USAGE = /* @__PURE__ */ defineEntity<UsageItem>()({
  name: 'usage',
  table: 'key',
  key: (keyId: string) => ({ pk: `KEY#${keyId}`, sk: 'USAGE' }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['usage'],
    key_id: STRING,
    team_id: STRING,
    total_requests: NUMBER,
    last_used_at: STRING_OR_NULL,
    last_valid_at: OPTIONAL_STRING,
    daily: COUNTS,
    transitions: COUNTS,
    windows: COUNTS,
  },
});

/** The access patterns on usage items. */
export const USAGE_ACCESS = {
  recordUse: ['UpdateItem'],
  admitMeteredUse: ['UpdateItem', 'BatchGetItem'],
  admitSharedMeteredUse: ['UpdateItem'],
  adjustCredits: ['UpdateItem', 'GetItem'],
  readTargetKey: ['BatchGetItem'],
  readUsage: ['GetItem'],
  readOldValueUse: ['GetItem'],
  readUsageBatch: ['BatchGetItem'],
  createKey: ['PutItem'],
} as const satisfies EntityAccess;

/** An empty usage item for a new key. */
export function newUsageItem(keyId: string, teamId: string): UsageItem {
  return {
    ...USAGE.key(keyId),
    entity: 'usage',
    key_id: keyId,
    team_id: teamId,
    total_requests: 0,
    last_used_at: null,
    daily: {},
    transitions: {},
    windows: {},
  };
}
