/**
 * The identity a verification answers beside a valid key that names one: its
 * id, external id and meta (what the platform needs to serve the customer),
 * read through the process's short memory of identities
 * (store/identity-store.ts `identityForVerification`).
 */
import type { IdentityItem } from '../domain/identities';
import type { VerifiedKey } from '../domain/model';
import type { ClockPort, IdentitiesPort } from '../store/ports';

/** What a verification shows of the key's identity. */
export interface VerifiedIdentity {
  id: string;
  external_id: string;
  meta: Record<string, unknown>;
}

/** The identity of a valid key; undefined when it names none (or the identity went, or is not the key's team's). */
export async function verifiedIdentityOf(services: IdentitiesPort & ClockPort, key: VerifiedKey): Promise<VerifiedIdentity | undefined> {
  if (!key.identity_id) return undefined;
  const identity = await services.identities.identityForVerification(key.identity_id, services.clock.now().getTime());
  if (!identity || identity.team_id !== key.team_id) return undefined;
  return shownOf(identity);
}

/** What is shown of each identity read: the store hands the same item back while it remembers it, so its meta is parsed once per read, not per verification. */
const shown = new WeakMap<IdentityItem, VerifiedIdentity>();

function shownOf(identity: IdentityItem): VerifiedIdentity {
  let view = shown.get(identity);
  if (!view) {
    view = { id: identity.id, external_id: identity.external_id, meta: JSON.parse(identity.meta) as Record<string, unknown> };
    shown.set(identity, view);
  }
  return view;
}
