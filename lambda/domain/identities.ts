/**
 * Identities: a team's customer (a user, an organisation, a tenant of the
 * platform), named by the platform's own id (`external_id`, unique in the
 * team), with metadata the platform reads back. Keys will name one and share
 * its limits and credits (docs/limits.md).
 */
import { meterResource, meterViewOf, type CreditRefill, type NamedLimit } from './meters';

/** The longest `external_id`, in characters. */
export const MAX_EXTERNAL_ID_LENGTH = 255;
/** The largest `meta`, in bytes of its JSON. */
export const MAX_META_BYTES = 4096;

/** An identity item (key table, `IDENTITY#<id>` / `IDENTITY`). */
export interface IdentityItem {
  pk: string;
  sk: string;
  entity: 'identity';
  id: string;
  team_id: string;
  external_id: string;
  /** The metadata, as the JSON text of an object (at most MAX_META_BYTES). */
  meta: string;
  created_at: string;
  updated_at: string;
  created_by: string;
  revision: number;
  /** How many keys name it (absent: none ever did); it is deleted only at 0. */
  key_count?: number;
  /** Its named limits and credits setting (domain/meters.ts); absent: none. Its counters and balance sit beside it on the item. */
  meter_def?: string;
  gsi1pk: string;
  gsi1sk: string;
}

/** What the API shows of an identity. */
export interface IdentityResource {
  id: string;
  team_id: string;
  external_id: string;
  meta: Record<string, unknown>;
  /** How many keys name it. */
  key_count: number;
  /** Its named limits, when it has any. */
  limits?: NamedLimit[];
  /** Its credits, when it has any: everything still spendable, and the refill. */
  credits?: { remaining: number; refill: CreditRefill | null };
  created_at: string;
  updated_at: string;
}

export function identityResource(item: IdentityItem, at: Date): IdentityResource {
  // The identity's item is its meter too: its balance sits beside its fields (domain/meters.ts).
  const meter = meterViewOf(item as unknown as Record<string, unknown>);
  return {
    id: item.id,
    team_id: item.team_id,
    external_id: item.external_id,
    meta: JSON.parse(item.meta) as Record<string, unknown>,
    key_count: item.key_count ?? 0,
    ...meterResource(meter.def, meter.credits, at),
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}
