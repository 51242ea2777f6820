import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * A JSON response. `Cache-Control: no-store` on every response: some carry a
 * key value that no cache or proxy may keep.
 */
export function jsonResponse(statusCode: number, body: unknown, requestId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Request-Id': requestId,
      ...headers,
    },
    body: JSON.stringify(body),
  };
}
