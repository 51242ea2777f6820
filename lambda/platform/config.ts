import { DEFAULT_GUESS_LIMIT_PER_MINUTE, DEFAULT_PLAN_RATE_LIMIT } from '../contract/defaults';
import { pepperFromSecret } from './pepper';
import type { ServiceSettings } from '../composition/services';

/**
 * Environment read through getters. A missing required variable fails the
 * first time it is read, which in Lambda is the cold start: a misconfigured
 * function never answers a request with half its settings.
 */

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`Environment variable ${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

export const config: ServiceSettings & { readonly dynamoEndpoint: string | undefined } = {
  /** Physical name of the key table. */
  get keyTableName(): string {
    return required('KEY_TABLE_NAME');
  },
  /** Physical name of the audit table. */
  get auditTableName(): string {
    return required('AUDIT_TABLE_NAME');
  },
  /** Plan limit: requests per hour for keys created without `rate_limit`. */
  get planRateLimit(): number {
    return positiveInteger('PLAN_RATE_LIMIT', DEFAULT_PLAN_RATE_LIMIT);
  },
  /**
   * Optional server-side pepper: when set, values are hashed with
   * HMAC-SHA256 under it instead of plain SHA-256. Changing it invalidates
   * every issued key, so it is set once per deployment or never. In AWS it
   * comes from the Secrets Manager secret `KEY_HASH_PEPPER_SECRET_ARN`
   * (platform/pepper.ts); locally from `KEY_HASH_PEPPER`.
   */
  get pepper(): string | undefined {
    const fromSecret = pepperFromSecret();
    if (fromSecret !== undefined) return fromSecret;
    const value = process.env.KEY_HASH_PEPPER;
    return value === undefined || value === '' ? undefined : value;
  },
  /** Verify endpoint: unknown values one source may verify per minute (`VERIFY_GUESS_LIMIT_PER_MINUTE`). */
  get guessLimitPerMinute(): number {
    return positiveInteger('VERIFY_GUESS_LIMIT_PER_MINUTE', DEFAULT_GUESS_LIMIT_PER_MINUTE);
  },
  /** Endpoint override for DynamoDB (DynamoDB Local); unset in AWS. */
  get dynamoEndpoint(): string | undefined {
    return process.env.DYNAMODB_ENDPOINT || undefined;
  },
};
