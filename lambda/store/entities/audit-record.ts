/**
 * An audit record, on the audit table: a key's events under `KEY#<key_id>`,
 * an endpoint's under `WEBHOOK#<endpoint_id>`, an identity's under
 * `IDENTITY#<identity_id>`, each sorted `<ISO time>#<event
 * id>`; on the team index under `TEAM#<team_id>` (keys) or
 * `WEBHOOKS#<team_id>` (endpoints) or `IDENTITIES#<team_id>` (identities)
 * with the same sort key. Write-once,
 * removed by TTL after AUDIT_TABLE_TTL_DAYS (the S3 archive keeps them).
 * The event's own fields are read back by their schema
 * (domain/audit-event-schema.ts); this declares what every record carries.
 */
import type { AuditRecord, NewAuditEvent } from '../../domain/audit-events';
import { AUDIT_TABLE_TTL_DAYS } from '../../contract/retention';
import { MS_PER_DAY, epochSeconds } from '../../platform/clock';
import { newEventId } from '../../platform/ids';
import { ANY_ID, ANY_TIME, NUMBER, STRING, defineEntity, positionOf, type EntityAccess, type IndexKey, type ItemOf } from './entity';
import type { PositionShape } from '../../platform/cursor';

const ATTRIBUTES = { pk: STRING, sk: STRING, gsi1pk: STRING, gsi1sk: STRING, event_id: STRING, event_type: STRING, ttl: NUMBER } as const;

/** What every audit record carries, as its attributes declare it. */
export type AuditRecordKeys = ItemOf<typeof ATTRIBUTES>;

/** A key's audit record. */
export const AUDIT_RECORD = /* @__PURE__ */ defineEntity<AuditRecordKeys>()({
  name: 'audit record',
  table: 'audit',
  key: (keyId: string, at: string, eventId: string) => ({ pk: `KEY#${keyId}`, sk: `${at}#${eventId}` }),
  attributes: ATTRIBUTES,
});

/** A key's audit record on the team index. */
export const auditTeamIndex = (teamId: string, at: string, eventId: string): IndexKey => ({ gsi1pk: `TEAM#${teamId}`, gsi1sk: `${at}#${eventId}` });

/** What was done to a webhook endpoint: under the endpoint. */
export const endpointAuditKey = (endpointId: string, at: string, eventId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: `${at}#${eventId}` });

/** A chained record's place on the chain index: the team's chain, in seq order (12 digits, so text order is seq order). */
export const chainIndex = (teamId: string, seq: number) => ({ gsi2pk: chainPartition(teamId), gsi2sk: String(seq).padStart(12, '0') });

/** A team's chain on the chain index. */
export const chainPartition = (teamId: string) => `CHAIN#${teamId}`;

/**
 * The last record of a page of a team's chain (on the chain index): a key's,
 * an endpoint's or an identity's record, at its seq.
 */
export const chainPage = (teamId: string): PositionShape => {
  const keyRecord = positionOf({ ...AUDIT_RECORD.key(ANY_ID, ANY_TIME, ANY_ID) });
  const { pk, sk } = keyRecord.attributes as { pk: RegExp; sk: RegExp };
  return {
    attributes: {
      pk: new RegExp(pk.source.replace('^KEY#', '^(KEY|WEBHOOK|IDENTITY)#')),
      sk,
      gsi2pk: chainPartition(teamId),
      gsi2sk: /^\d{12}$/,
    },
  };
};

/** What was done to an identity: under the identity. */
export const identityAuditKey = (identityId: string, at: string, eventId: string) => ({ pk: `IDENTITY#${identityId}`, sk: `${at}#${eventId}` });

/** An identity's audit record on the team index (a partition of its own). */
export const identityAuditTeamIndex = (teamId: string, at: string, eventId: string): IndexKey => ({
  gsi1pk: `IDENTITIES#${teamId}`,
  gsi1sk: `${at}#${eventId}`,
});

/** An endpoint's audit record on the team index (a partition of its own). */
export const endpointAuditTeamIndex = (teamId: string, at: string, eventId: string): IndexKey => ({
  gsi1pk: `WEBHOOKS#${teamId}`,
  gsi1sk: `${at}#${eventId}`,
});

/** The last record of a page of one key's audit trail. */
export const keyAuditPage = (keyId: string) => positionOf(AUDIT_RECORD.key(keyId, ANY_TIME, ANY_ID));

/** The last record of a page of a team's audit trail (on the team index). */
export const teamAuditPage = (teamId: string) => positionOf({ ...AUDIT_RECORD.key(ANY_ID, ANY_TIME, ANY_ID), ...auditTeamIndex(teamId, ANY_TIME, ANY_ID) });

/** The access patterns on audit records: each change's transaction writes one; the audit route reads them. */
export const AUDIT_RECORD_ACCESS = {
  readAuditTrail: ['Query', 'Query byTeam'],
  // A team's whole chain, in seq order, on the chain index (the audit table's two indexes share one grant: lib/house-function.ts).
  readAuditChain: ['Query byTeam'],
  updateKey: ['PutItem'],
  createKey: ['PutItem'],
  rotateValue: ['PutItem'],
  expirePreviousValue: ['PutItem'],
  tombstoneKey: ['PutItem'],
  recordLeak: ['PutItem'],
  recordExpiryNotice: ['PutItem'],
  recordUnusedNotice: ['PutItem'],
  changeTeamSettings: ['PutItem'],
  createWebhookEndpoint: ['PutItem'],
  changeWebhookEndpoint: ['PutItem'],
  deleteWebhookEndpoint: ['PutItem'],
  auditWebhookAction: ['PutItem'],
  createIdentity: ['PutItem'],
  changeIdentity: ['PutItem'],
  deleteIdentity: ['PutItem'],
  adjustCredits: ['PutItem'],
  // credits.low and credits.exhausted, written by the verification that crosses (store/credit-notices.ts).
  admitSharedMeteredUse: ['PutItem'],
} as const satisfies EntityAccess;

/** The audit-table item for an event (keys, team index, TTL). */
export function auditItem(event: NewAuditEvent): AuditRecord {
  const eventId = newEventId();
  const occurred = new Date(event.occurred_at);
  const keys =
    'endpoint_id' in event
      ? { ...endpointAuditKey(event.endpoint_id, event.occurred_at, eventId), ...endpointAuditTeamIndex(event.team_id, event.occurred_at, eventId) }
      : 'identity_id' in event && event.identity_id !== undefined
        ? { ...identityAuditKey(event.identity_id, event.occurred_at, eventId), ...identityAuditTeamIndex(event.team_id, event.occurred_at, eventId) }
        : {
            ...AUDIT_RECORD.key((event as { key_id: string }).key_id, event.occurred_at, eventId),
            ...auditTeamIndex(event.team_id, event.occurred_at, eventId),
          };
  return {
    ...keys,
    ...event,
    event_id: eventId,
    ttl: epochSeconds(new Date(occurred.getTime() + AUDIT_TABLE_TTL_DAYS * MS_PER_DAY)),
  };
}
