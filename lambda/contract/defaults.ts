/**
 * Defaults of the service's settings, in one place: the CDK stack's context
 * defaults, the local runtime and the handlers' environment readers use them.
 */

/** Default `rate_limit` (requests per hour) of a key created without one: the plan limit. */
export const DEFAULT_PLAN_RATE_LIMIT = 1000;

/** Verify endpoint: unknown values one source (IPv4 address or IPv6 /64) may verify per minute. */
export const DEFAULT_GUESS_LIMIT_PER_MINUTE = 30;
