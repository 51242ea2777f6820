/** The fields of a key an update may change, declared once: the update route, its audit record and the value lookups all read this list. */
import type { KeyItem } from './model';

/** The fields an update may change; their before and after values are audited. */
export const EDITABLE_FIELDS = [
  'name',
  'description',
  'scopes',
  'domains',
  'ip_whitelist',
  'rate_limit',
  'expires_at',
  'on_leak',
  'is_active',
  'identity_id',
] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];
/** The editable fields' values; `identity_id` null takes the key out of its identity. */
export type EditableKeyFields = Omit<Pick<KeyItem, EditableField>, 'identity_id'> & { identity_id?: string | null };
/** What an update writes: the editable fields, and the limits and credits setting (`null`: none left). */
export type KeyChanges = Partial<EditableKeyFields> & { meter_def?: string | null };

/** The configuration a value lookup copies from its key (what authentication needs that can change). */
export const LOOKUP_SNAPSHOT_FIELDS = [
  'name',
  'scopes',
  'domains',
  'ip_whitelist',
  'rate_limit',
  'is_active',
  'expires_at',
  'identity_id',
  // The named limits and credits setting (domain/meters.ts), changed through `limits` and `credits`.
  'meter_def',
] as const satisfies readonly (EditableField | 'meter_def')[];
