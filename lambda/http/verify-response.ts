/**
 * How a verification result is answered by the verify endpoint: the body
 * (`valid`, `code`, the key's public facts, the rate-limit state) and the
 * headers (`Retry-After`, the per-key CORS answer). Never the value.
 */
import type { VerifyResult } from '../verification/verify';
import { rateLimitHeaders } from '../domain/rate-window';
import type { VerifyKeyResponse } from '../routes/verify-api-key/schema';

export function verifyResponseBody(result: VerifyResult): VerifyKeyResponse {
  const body: VerifyKeyResponse = { valid: result.valid, code: result.code };
  if (result.valid) {
    const { id, team_id, type, environment, scopes } = result.key;
    body.key = { id, team_id, type, environment, scopes };
  }
  if ('ratelimit' in result) {
    const { limit, remaining, reset } = result.ratelimit;
    body.ratelimit = { limit, remaining, reset };
  }
  return body;
}

export function verifyResponseHeaders(result: VerifyResult, now: Date): Record<string, string> {
  // A use counted against the key's limit: its RateLimit headers, as on the management routes.
  const headers: Record<string, string> = 'ratelimit' in result ? rateLimitHeaders(result.ratelimit, now) : {};
  if (result.code === 'RATE_LIMITED') headers['Retry-After'] = String(result.ratelimit.retryAfterSeconds ?? 1);
  if (result.allowedOrigin !== undefined) {
    headers['Access-Control-Allow-Origin'] = result.allowedOrigin;
    headers['Access-Control-Expose-Headers'] = 'Retry-After, X-Request-Id, RateLimit, RateLimit-Policy';
  }
  return headers;
}
