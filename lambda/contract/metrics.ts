/**
 * The service's custom CloudWatch metrics (Embedded Metric Format, written
 * by Powertools Metrics): names, units and dimensions in one place, so the
 * handlers that emit them and the stack's dashboard and alarms that read
 * them cannot drift apart. Every metric also carries the `service`
 * dimension (POWERTOOLS_SERVICE_NAME).
 */

/** Namespace when the stack's context sets none (`metricsNamespace`). */
export const DEFAULT_METRICS_NAMESPACE = 'ApiKeyService';
/** `service` dimension when the stack's context sets none. */
export const DEFAULT_SERVICE_NAME = 'api-key-service';

export const MetricName = {
  /** One per verification (verify endpoint and platform authorizer), dimension `code` (VALID, NOT_FOUND, …). */
  Verifications: 'Verifications',
  /** One per answer of the management routes' authorizer, dimension `code` (ALLOW, a refusal code, UNAUTHORIZED, ERROR). */
  ManagementAuthorizations: 'ManagementAuthorizations',
  /** One per management call, dimensions `route` and `status_class` (2xx, 4xx, 5xx). */
  ManagementCalls: 'ManagementCalls',
  /** A call refused because the calling key is over its `rate_limit` (429 RATE_LIMITED, or the authorizer's Deny). */
  RateLimited: 'RateLimited',
  /** A DynamoDB request refused with a throttling error. */
  Throttled: 'Throttled',
  /** A verification refused by the per-source guess limiter. */
  GuessLimiterTrips: 'GuessLimiterTrips',
  /** Seconds from an audit event's `occurred_at` to its archive object (per batch, the oldest). */
  ArchiveLagSeconds: 'ArchiveLagSeconds',
  /** An old value revoked by its grace-period schedule. */
  RevocationsDone: 'RevocationsDone',
  /** A revocation that ran more than `REVOCATION_LATE_AFTER_SECONDS` after the transition's end. */
  RevocationsLate: 'RevocationsLate',
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

export const MetricDimension = {
  service: 'service',
  code: 'code',
  route: 'route',
  statusClass: 'status_class',
} as const;

/** A revocation this long after the transition's end counts as late. */
export const REVOCATION_LATE_AFTER_SECONDS = 60;
