/**
 * The local stand-in for a platform team's own REST API that uses this
 * service's platform authorizer: `npm start` serves `/platform/<path>`
 * (any method) behind the same authorizer function the stack deploys
 * (lambda/handlers/authorizer.ts), with API Gateway's result cache:
 *
 * - identity source `Authorization`: a request without it is 401 and the
 *   authorizer is not called, as API Gateway does;
 * - the authorizer's policy is kept per Authorization header for
 *   `AUTHORIZER_CACHE_TTL` seconds (default 300, 0: no cache; at most 3600,
 *   API Gateway's limit), and every later request with the same header is
 *   judged by the kept policy without calling the authorizer (no use
 *   recorded, no revocation seen) until it expires or the cache is flushed;
 * - `Unauthorized` (no key, an unknown, disabled or expired one) is 401 and
 *   not kept; a policy that denies this method is 403;
 * - allowed: 200 with the principal and the authorizer's context (never the
 *   value, never the team's usage key).
 *
 * Route scopes come from `AUTHORIZER_SCOPE` and `AUTHORIZER_ROUTE_SCOPES`,
 * read as the deployed authorizer reads them. Revocations flush the cache
 * (local/start.ts: the lifecycle events that stop a key, as in AWS).
 */
import { createHash } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { ApiError, ErrorCode, errorBody } from '../lambda/contract/errors';
import { jsonResponse } from '../lambda/contract/response';
import type { Clock } from '../lambda/platform/clock';

/** The path prefix of the local platform stage. */
export const PLATFORM_PREFIX = '/platform';
/** API Gateway's default authorizer result TTL, seconds. */
export const DEFAULT_CACHE_TTL_SECONDS = 300;
/** API Gateway's largest authorizer result TTL, seconds. */
export const MAX_CACHE_TTL_SECONDS = 3600;

const STAGE_ARN = 'arn:aws:execute-api:local:000000000000:platform/local/';

type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

/** One request to the platform stage, as the local server read it. */
export interface PlatformRequest {
  readonly method: string;
  /** The path after `/platform` (`/tiles/1`), decoded as the server read it. */
  readonly path: string;
  /** The headers as the server read them (local/server.ts), in the client's casing: the last value, and every value. */
  readonly headers: APIGatewayProxyEvent['headers'];
  readonly multiValueHeaders: APIGatewayProxyEvent['multiValueHeaders'];
  readonly sourceIp: string;
  readonly requestId: string;
}

export interface PlatformAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the answer came from the cache (the authorizer was not called). */
  readonly cached: boolean;
}

export interface PlatformStage {
  answer(request: PlatformRequest): Promise<PlatformAnswer>;
  /** Forgets every kept answer (a revocation's flush). */
  flush(): void;
  /** Answers kept now (tests). */
  readonly size: number;
}

/** Whether an IAM resource pattern (`*` any characters, `?` one) matches `arn`. */
function resourceMatches(pattern: string, arn: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return regex.test(arn);
}

/** IAM's decision for `arn`: an explicit Deny wins, then an Allow; nothing: denied. */
export function policyAllows(result: APIGatewayAuthorizerResult, arn: string): boolean {
  const statements = result.policyDocument.Statement as Array<{ Effect: string; Resource?: string | string[] }>;
  const covers = (statement: { Resource?: string | string[] }) => [statement.Resource ?? []].flat().some((pattern) => resourceMatches(pattern, arn));
  if (statements.some((statement) => statement.Effect === 'Deny' && covers(statement))) return false;
  return statements.some((statement) => statement.Effect === 'Allow' && covers(statement));
}

/**
 * The challenge of a 401 (RFC 9110 §11.6.1, RFC 6750 §3): with no key, no
 * error code; with a key that does not verify, `invalid_token`. In AWS, a
 * platform API's UNAUTHORIZED gateway response carries it
 * (docs/verification.md).
 */
export const PLATFORM_CHALLENGE = 'Bearer realm="platform"';

/** The REQUEST authorizer's event API Gateway would send for `request` to the method `arn`. */
function authorizerEventOf(request: Parameters<PlatformStage['answer']>[0], arn: string, userAgent: string | undefined): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: arn,
    resource: request.path || '/',
    path: request.path || '/',
    httpMethod: request.method.toUpperCase(),
    headers: request.headers,
    multiValueHeaders: request.multiValueHeaders,
    pathParameters: {},
    queryStringParameters: {},
    multiValueQueryStringParameters: {},
    stageVariables: {},
    requestContext: {
      accountId: '000000000000',
      apiId: 'platform',
      httpMethod: request.method.toUpperCase(),
      identity: { sourceIp: request.sourceIp, userAgent: userAgent ?? null },
      path: `/local${request.path}`,
      stage: 'local',
      requestId: request.requestId,
      resourceId: 'local',
      resourcePath: request.path || '/',
    },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

export function createPlatformStage(options: { authorizer: AuthorizerHandler; ttlSeconds: number; clock: Clock }): PlatformStage {
  const kept = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();
  const refusal = (error: ApiError, requestId: string, cached = false): PlatformAnswer => {
    const response = jsonResponse(error.status, errorBody(error, requestId), requestId, { ...error.headers });
    return { status: error.status, headers: response.headers as Record<string, string>, body: response.body, cached };
  };

  return {
    get size() {
      return kept.size;
    },
    flush: () => kept.clear(),
    async answer(request) {
      const { headers } = request;
      // Header names are the client's casing; HTTP compares them without case.
      const headerNamed = (wanted: string) => Object.entries(headers).find(([name]) => name.toLowerCase() === wanted)?.[1];
      const identity = headerNamed('authorization');
      if (identity === undefined || identity === '') {
        return refusal(
          new ApiError(ErrorCode.UNAUTHORIZED, 'Unauthorized: send the key as Authorization: Bearer <value>.', [], { 'WWW-Authenticate': PLATFORM_CHALLENGE }),
          request.requestId,
        );
      }
      const method = request.method.toUpperCase();
      const resource = `${method}${request.path === '' ? '/' : request.path}`;
      const arn = `${STAGE_ARN}${resource}`;
      // Kept by a hash of the header: the value itself is not held beyond the request.
      const cacheKey = createHash('sha256').update(identity).digest('hex');
      const now = options.clock.now().getTime();
      const hit = kept.get(cacheKey);
      let result = hit && hit.until > now ? hit.result : undefined;
      const cached = result !== undefined;
      if (!result) {
        kept.delete(cacheKey);
        const event = authorizerEventOf(request, arn, headerNamed('user-agent'));
        try {
          result = await options.authorizer(event, { awsRequestId: request.requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
        } catch (error) {
          // API Gateway turns exactly this message into 401 (lambda/handlers/authorizer.ts).
          if (error instanceof Error && error.message === 'Unauthorized') {
            return refusal(
              new ApiError(ErrorCode.UNAUTHORIZED, 'Unauthorized: the key is unknown, disabled, expired or revoked.', [], {
                'WWW-Authenticate': `${PLATFORM_CHALLENGE}, error="invalid_token"`,
              }),
              request.requestId,
            );
          }
          throw error;
        }
        if (options.ttlSeconds > 0) kept.set(cacheKey, { result, until: now + options.ttlSeconds * 1000 });
      }
      if (!policyAllows(result, arn)) {
        return refusal(new ApiError(ErrorCode.FORBIDDEN, 'User is not authorized to access this resource with an explicit deny.'), request.requestId, cached);
      }
      const { principalId, context } = result;
      const response = jsonResponse(200, { principal_id: principalId, context: context ?? {}, cached }, request.requestId);
      return { status: 200, headers: response.headers as Record<string, string>, body: response.body, cached };
    },
  };
}
