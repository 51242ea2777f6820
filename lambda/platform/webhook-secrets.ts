/** New webhook signing secrets (kept apart from signing, so the routes that issue secrets do not bundle the signing library). */
import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Random bytes of a new secret (Standard Webhooks allows 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}
