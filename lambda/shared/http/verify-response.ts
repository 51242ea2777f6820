/**
 * How a verification result is answered by the verify endpoint: the body
 * (`valid`, `code`, the key's public facts, the rate-limit state) and the
 * headers (`Retry-After`, the per-key CORS answer). Never the value.
 */
import type { VerifyResult } from '../auth/verify';
import type { VerifyKeyResponse } from './schemas/verify-key';

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

export function verifyResponseHeaders(result: VerifyResult): Record<string, string> {
  const headers: Record<string, string> = {};
  if (result.code === 'RATE_LIMITED') headers['Retry-After'] = String(result.ratelimit.retryAfterSeconds ?? 1);
  if (result.allowedOrigin !== undefined) {
    headers['Access-Control-Allow-Origin'] = result.allowedOrigin;
    headers['Access-Control-Expose-Headers'] = 'Retry-After, X-Request-Id';
  }
  return headers;
}
