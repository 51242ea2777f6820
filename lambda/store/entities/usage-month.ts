/**
 * A key's requests per day of one month (`d01` … `d31`) and their sum, once
 * older than the usage item keeps: `KEY#<id>` / `USAGE#M#<YYYY-MM>`, kept
 * permanently, read by the usage route beyond the usage item's days.
 */
import type { UsageMonthItem } from '../../domain/model';
import { NUMBER, STRING, defineEntity, type EntityAccess } from './entity';

/** Sort-key prefix of a key's month items (queried with begins_with). */
export const USAGE_MONTH_PREFIX = 'USAGE#M#';

export const USAGE_MONTH = /* @__PURE__ */ defineEntity<UsageMonthItem>()({
  name: 'usage month',
  table: 'key',
  key: (keyId: string, month: string) => ({ pk: `KEY#${keyId}`, sk: `${USAGE_MONTH_PREFIX}${month}` }),
  attributes: { pk: STRING, sk: STRING, entity: ['usage-month'], key_id: STRING, month: STRING, total: NUMBER },
  rest: { pattern: /^d\d\d$/, kind: NUMBER },
});

/** The access patterns on month items: the day copied once a day by a use, the history read. */
export const USAGE_MONTH_ACCESS = {
  recordUse: ['UpdateItem'],
  readUsageHistory: ['Query'],
} as const satisfies EntityAccess;
