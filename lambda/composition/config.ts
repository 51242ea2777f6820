import { DEFAULT_GUESS_LIMIT_PER_MINUTE, DEFAULT_PLAN_RATE_LIMIT } from '../contract/defaults';
import { pepperFromSecret } from '../adapters/pepper';
import { optionalSetting, positiveIntegerSetting, requiredSetting } from '../platform/environment';
import type { ServiceSettings } from '../platform/service-settings';

/**
 * The services' settings, read from the environment through getters
 * (environment.ts): a missing required variable fails the first time it is
 * read, which in Lambda is the cold start: a misconfigured function never
 * answers a request with half its settings.
 */
export const config: ServiceSettings & { readonly dynamoEndpoint: string | undefined } = {
  /** Physical name of the key table. */
  get keyTableName(): string {
    return requiredSetting('KEY_TABLE_NAME');
  },
  /** Physical name of the audit table. */
  get auditTableName(): string {
    return requiredSetting('AUDIT_TABLE_NAME');
  },
  /** Plan limit: requests per hour for keys created without `rate_limit`. */
  get planRateLimit(): number {
    return positiveIntegerSetting('PLAN_RATE_LIMIT', DEFAULT_PLAN_RATE_LIMIT);
  },
  /**
   * Optional server-side pepper: when set, values are hashed with
   * HMAC-SHA256 under it instead of plain SHA-256. Changing it invalidates
   * every issued key, so it is set once per deployment or never. In AWS it
   * comes from the Secrets Manager secret `KEY_HASH_PEPPER_SECRET_ARN`
   * (adapters/pepper.ts); locally from `KEY_HASH_PEPPER`.
   */
  get pepper(): string | undefined {
    return pepperFromSecret() ?? optionalSetting('KEY_HASH_PEPPER');
  },
  /** Verify endpoint: unknown values one source may verify per minute (`VERIFY_GUESS_LIMIT_PER_MINUTE`). */
  get guessLimitPerMinute(): number {
    return positiveIntegerSetting('VERIFY_GUESS_LIMIT_PER_MINUTE', DEFAULT_GUESS_LIMIT_PER_MINUTE);
  },
  /** The platform stages' longest authorizer cache TTL (`AUTHORIZER_CACHE_TTL_SECONDS`), read by regenerate only. */
  get authorizerCacheTtlSeconds(): number | undefined {
    const seconds = Number(optionalSetting('AUTHORIZER_CACHE_TTL_SECONDS'));
    return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
  },
  /** The key page cursors are signed with: a secret the stack generates (`CURSOR_SIGNING_KEY`); read by the list routes. */
  get cursorSigningKey(): string {
    return requiredSetting('CURSOR_SIGNING_KEY');
  },
  /** Endpoint override for DynamoDB (DynamoDB Local); unset in AWS. */
  get dynamoEndpoint(): string | undefined {
    return optionalSetting('DYNAMODB_ENDPOINT');
  },
};
