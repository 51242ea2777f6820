/** The settings the services read (lambda/composition/config.ts reads them from the environment). */
export interface ServiceSettings {
  readonly keyTableName: string;
  readonly auditTableName: string;
  /** Default `rate_limit` of a key created without one. */
  readonly planRateLimit: number;
  /** Verify endpoint: unknown values one source may verify per minute. */
  readonly guessLimitPerMinute: number;
  /** Server-side pepper of value hashes (HMAC-SHA256), when set. */
  readonly pepper?: string;
  /** The platform stages' longest authorizer result-cache TTL, in seconds (regenerate's warning); unset: no cache known. */
  readonly authorizerCacheTtlSeconds?: number;
  /** The key page cursors are signed with (lambda/platform/cursor.ts); only the list routes need it. */
  readonly cursorSigningKey?: string;
}
