/**
 * Revocation that reaches cached authorizers (docs/verification.md): API
 * Gateway keeps a platform authorizer's answer per key for the cache TTL;
 * when a key or one of its values stops, the caches of the platform stages
 * that use the authorizer are flushed. Dependency-free: the CDK app (the
 * rule on the bus), the flush function and the local runtime read it.
 */

/**
 * The lifecycle events after which a cached answer may be wrong: a value or
 * a key stopped, or what a key may reach shrank. (A leak that only notified
 * is on the list too: the flush function skips it.)
 */
export const FLUSHING_EVENT_TYPES = [
  'key.updated',
  'key.disabled',
  'key.regenerated',
  'key.old_value_expired',
  'key.expired',
  'key.leaked',
  'key.deleted',
] as const;

/** At most one flush of a stage starts per this many milliseconds; a later change waits for the next. */
export const FLUSH_INTERVAL_MS = 1_000;

/** A platform stage as configured: `<restApiId>:<stage>`. */
export const STAGE_PATTERN = /^[a-z0-9]{10}:[A-Za-z0-9_-]{1,128}$/;

/** The API Gateway ids of a configured stage. */
export function stageOf(entry: string): { restApiId: string; stageName: string } {
  const at = entry.indexOf(':');
  return { restApiId: entry.slice(0, at), stageName: entry.slice(at + 1) };
}
