/**
 * Defaults of the service's settings, in one place: the CDK stack's context
 * defaults, the local runtime and the handlers' environment readers use them.
 */

/** Default `rate_limit` (requests per hour) of a key created without one: the plan limit. */
export const DEFAULT_PLAN_RATE_LIMIT = 1000;

/** Verify endpoint: unknown values one source (IPv4 address or IPv6 /64) may verify per minute. */
export const DEFAULT_GUESS_LIMIT_PER_MINUTE = 30;

/** Per team, per route declared `throttle: 'write'` (create, regenerate, delete): requests per second and burst, within the team's plan. */
export const DEFAULT_WRITE_THROTTLE = { rateLimit: 10, burstLimit: 20 } as const;

/** What API Gateway (and the local gateway stage) says when a throttle answers 429. */
export const THROTTLED_MESSAGE =
  "Too many requests: a throttle of the team's usage plan, the stage or the account answered; retry after the Retry-After seconds.";
