/**
 * The local runtime's API Gateway in front of the management routes, with
 * the semantics API Gateway documents: the management authorizer (the very
 * handler the stack deploys) authenticates the Bearer key and names the
 * team's API Gateway key; that key's plan throttles it (a token bucket,
 * local/token-bucket.ts) and counts it against the plan's quota per UTC
 * calendar period. Quota counts live in DynamoDB Local, so a restart keeps
 * them; buckets refill within seconds and live in memory.
 *
 * Plans: `USAGE_PLANS` (JSON) when set, else the `plans` context of
 * cdk.json, else the default plan (lambda/contract/plans.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { ApiError, ErrorCode, errorBody } from '../lambda/contract/errors';
import { DEFAULT_USAGE_PLANS, parseUsagePlans, quotaPeriodOf, type UsagePlans } from '../lambda/contract/plans';
import { jsonResponse } from '../lambda/contract/response';
import { TTL_ATTRIBUTE } from '../lambda/contract/tables';
import type { Clock } from '../lambda/platform/clock';
import { documentClientOf } from '../lambda/composition/dynamo';
import { TokenBucket } from './token-bucket';
import { DEFAULT_WRITE_THROTTLE, THROTTLED_MESSAGE } from '../lambda/contract/defaults';
import { ROUTES } from '../lambda/routes';

/**
 * A usage key's quota count in one calendar period: the local stand-in for
 * what API Gateway counts in AWS, so no Lambda function's entity
 * (lambda/store/entities/) and no function's grant; removed by TTL a day
 * after its period.
 */
const planQuotaKey = (usageKeyHash: string, periodId: string) => ({ pk: `PLANQUOTA#${usageKeyHash}`, sk: periodId });

/** A plan setting that cannot be used: one line, exit code 2 (like the other settings). */
export class PlansError extends Error {
  override name = 'PlansError';
}

const CDK_JSON = path.resolve(__dirname, '..', 'cdk.json');

/** The plans this runtime enforces. */
export function plansFrom(env: NodeJS.ProcessEnv = process.env, cdkJsonPath = CDK_JSON): UsagePlans {
  const fromEnv = env.USAGE_PLANS;
  let source: unknown = DEFAULT_USAGE_PLANS;
  let origin = 'the default plan';
  if (fromEnv !== undefined && fromEnv !== '') {
    source = fromEnv;
    origin = 'USAGE_PLANS';
  } else {
    const context = (JSON.parse(readFileSync(cdkJsonPath, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
    if (context.plans !== undefined) {
      source = context.plans;
      origin = 'cdk.json context "plans"';
    }
  }
  const { plans, problems } = parseUsagePlans(source);
  if (problems.length > 0) throw new PlansError(`${origin}: ${problems.join('; ')}`);
  return plans;
}

export type ManagementAuthorizer = (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

export interface PlanGatewayOptions {
  readonly plans: UsagePlans;
  /** The management authorizer handler, made with the runtime's services. */
  readonly authorizer: ManagementAuthorizer;
  /** DynamoDB Local, for the quota counts. */
  readonly client: DynamoDBClient;
  readonly keyTableName: string;
  readonly clock: Clock;
  /** Per team, the routes declared `throttle: 'write'`, within the plan's own throttle (as the stack sets it in every usage plan). Default: DEFAULT_WRITE_THROTTLE. */
  readonly writeThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
}

/** `METHOD /path` of the routes every plan throttles per team more tightly. */
const WRITE_ROUTES = new Set(ROUTES.filter((route) => route.throttle === 'write').map((route) => `${route.method} ${route.path}`));

/** The request an authorizer sees, built from the proxy event as API Gateway builds it. */
function authorizerEventOf(event: APIGatewayProxyEvent): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/${event.requestContext.stage}/${event.httpMethod}${event.path}`,
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    pathParameters: event.pathParameters,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    stageVariables: null,
    requestContext: event.requestContext,
  } as APIGatewayRequestAuthorizerEvent;
}

function refusal(error: ApiError, requestId: string): APIGatewayProxyResult {
  return jsonResponse(error.status, errorBody(error, requestId), requestId, { ...error.headers });
}

/**
 * The gateway stage for one request: undefined to go on to the handler
 * (with the authorizer's context on the event, as API Gateway passes it), or
 * the answer API Gateway would give instead.
 */
export function createPlanGateway(options: PlanGatewayOptions) {
  const db = documentClientOf(options.client);
  const buckets = new Map<string, TokenBucket>();

  async function countQuota(usageKeyHash: string, limit: number, period: 'DAY' | 'WEEK' | 'MONTH', now: Date): Promise<number | undefined> {
    const { id, endsAt } = quotaPeriodOf(period, now);
    try {
      await db.send(
        new UpdateCommand({
          TableName: options.keyTableName,
          Key: planQuotaKey(usageKeyHash, id),
          UpdateExpression: 'SET entity = :entity, #ttl = :ttl ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':entity': 'plan-quota', ':ttl': Math.floor(endsAt.getTime() / 1000) + 86_400, ':one': 1, ':limit': limit },
        }),
      );
      return undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return Math.max(1, Math.ceil((endsAt.getTime() - now.getTime()) / 1000));
      throw error;
    }
  }

  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult | undefined> => {
    const requestId = event.requestContext.requestId;
    let result: APIGatewayAuthorizerResult;
    try {
      result = await options.authorizer(authorizerEventOf(event), { awsRequestId: randomUUID() } as Context);
    } catch (error) {
      if ((error as Error).message !== 'Unauthorized') throw error;
      return refusal(
        new ApiError(ErrorCode.UNAUTHORIZED, 'The API key is missing or invalid: send "Authorization: Bearer <API key>".', [], {
          'WWW-Authenticate': 'Bearer realm="api-keys", error="invalid_token"',
        }),
        requestId,
      );
    }
    const usageKey = result.usageIdentifierKey;
    const plan = options.plans[String(result.context?.plan ?? '')];
    if (!usageKey || !plan) {
      return refusal(
        new ApiError(ErrorCode.FORBIDDEN, "The calling key's team has no usage plan: the operator runs npm run bootstrap -- --team-id <id> --plan <name>."),
        requestId,
      );
    }
    const usageKeyHash = createHash('sha256').update(usageKey).digest('hex');
    const now = options.clock.now();
    const take = (name: string, limits: { rateLimit: number; burstLimit: number }) => {
      let bucket = buckets.get(name);
      if (!bucket) buckets.set(name, (bucket = new TokenBucket(limits, now.getTime())));
      return bucket.take(now.getTime());
    };
    const planName = String(result.context?.plan);
    const route = `${event.httpMethod} ${event.path}`;
    const write = options.writeThrottle ?? DEFAULT_WRITE_THROTTLE;
    // The method's throttle first, as API Gateway checks a plan's per-method throttle instead of its overall one.
    const taken = WRITE_ROUTES.has(route)
      ? take(`${usageKeyHash}#${planName}#${route}`, {
          rateLimit: Math.min(write.rateLimit, plan.rateLimit),
          burstLimit: Math.min(write.burstLimit, plan.burstLimit),
        })
      : take(`${usageKeyHash}#${planName}`, plan);
    if (!taken.admitted) {
      return refusal(new ApiError(ErrorCode.THROTTLED, THROTTLED_MESSAGE, [], { 'Retry-After': String(taken.retryAfterSeconds) }), requestId);
    }
    if (plan.quota) {
      const retryAfter = await countQuota(usageKeyHash, plan.quota.limit, plan.quota.period, now);
      if (retryAfter !== undefined) {
        return refusal(
          new ApiError(ErrorCode.QUOTA_EXCEEDED, "The team's usage plan quota for this period is used up.", [], { 'Retry-After': String(retryAfter) }),
          requestId,
        );
      }
    }
    // As API Gateway does: the authorizer's context reaches the handler.
    (event.requestContext as { authorizer?: unknown }).authorizer = { ...result.context, principalId: result.principalId };
    return undefined;
  };
}
