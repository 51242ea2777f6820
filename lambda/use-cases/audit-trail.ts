/**
 * Reading the audit trail: a key's events or a team's, newest first, the
 * same records the archive receives, as events (storage attributes
 * dropped). A key's trail stays readable after the key is deleted, while
 * its tombstone lasts (`keptKey`, as get and usage read it); another team's
 * key is 404.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { CHAIN_INDEX, TEAM_INDEX } from '../contract/tables';
import { assertOwnTeam, notFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import { keptKey } from './read-keys';
import type { AuditEvent } from '../domain/audit-events';
import { AUDIT_STORAGE_ATTRIBUTES, parseAuditEvent } from '../domain/audit-event-schema';
import type { AuditPort, ClockPort, KeysPort, SettingsPort } from '../store/ports';
import { chainPage, chainPartition, keyAuditPage, teamAuditPage } from '../store/entities/audit-record';
import { teamKeysPartition } from '../store/entities/key';
import type { PositionShape } from '../platform/cursor';

/** A page of a key's trail (`key_id`) or of the team's (`team_id`). */
export interface AuditEventsInput {
  key_id?: string;
  team_id?: string;
  order?: 'newest' | 'chain';
  limit: number;
  cursor?: string;
}

export interface AuditPage {
  data: AuditEvent[];
  next_cursor: string | null;
}

/** A stored record as its event, fields in the schema's order (the storage attributes dropped). */
function eventOf(item: Record<string, unknown>): AuditEvent {
  const parsed = parseAuditEvent(item);
  if (parsed.ok) return parsed.event;
  // A record the schema does not know (written by another version): shown as stored, storage dropped.
  const event: Record<string, unknown> = { ...item };
  for (const name of AUDIT_STORAGE_ATTRIBUTES) delete event[name];
  return event as unknown as AuditEvent;
}

/** What the audit trail reads: the audit store, the key (its reach), the clock, the cursor signing key. */
export type AuditTrailPorts = AuditPort & KeysPort & ClockPort & SettingsPort<'cursorSigningKey'>;

export async function listAuditEvents(services: AuditTrailPorts, caller: VerifiedKey, input: AuditEventsInput): Promise<AuditPage> {
  let partition: { index?: string; attribute: 'pk' | 'gsi1pk' | 'gsi2pk'; value: string; position: PositionShape; forward?: boolean };
  if (input.key_id !== undefined) {
    const key = await keptKey(services, caller, input.key_id, services.clock.now());
    if (!key) throw notFound(input.key_id);
    partition = { attribute: 'pk', value: `KEY#${key.id}`, position: keyAuditPage(key.id) };
  } else {
    assertOwnTeam(caller, input.team_id, 'The calling key cannot read the audit trail of another team.');
    if (caller.environment === 'test') {
      throw new ApiError(ErrorCode.FORBIDDEN, 'A test key reads the audit trail of one test key at a time: pass key_id.', [
        { field: 'team_id', issue: 'needs a live key; a test key may pass key_id' },
      ]);
    }
    partition =
      input.order === 'chain'
        ? { index: CHAIN_INDEX, attribute: 'gsi2pk', value: chainPartition(caller.team_id), position: chainPage(caller.team_id), forward: true }
        : { index: TEAM_INDEX, attribute: 'gsi1pk', value: teamKeysPartition(caller.team_id), position: teamAuditPage(caller.team_id) };
  }
  const startAfter = input.cursor ? decodeCursor(input.cursor, partition.position, services.settings.cursorSigningKey) : undefined;
  const page = await services.audit.auditPage({ ...partition, startAfter, limit: input.limit });
  const last = page.items[page.items.length - 1];
  return {
    data: page.items.map(eventOf),
    next_cursor:
      page.more && last
        ? encodeCursor(
            Object.fromEntries(Object.keys(partition.position.attributes).map((name) => [name, String(last[name])])),
            services.settings.cursorSigningKey,
          )
        : null,
  };
}
