/**
 * Gateway-generated errors in the service's one error shape, so a caller
 * parses throttling, a refused key or an unknown route like any other error;
 * every one readable cross-origin (its body holds no data of any key).
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { THROTTLED_MESSAGE } from '../lambda/contract/defaults';

/** Every gateway-made answer is readable cross-origin: its body holds no data of any key. */
const GATEWAY_CORS = { 'Access-Control-Allow-Origin': "'*'" };

/** The house error body, for a mapping template (the request id is API Gateway's). */
export function errorTemplate(code: string, message: string): Record<string, string> {
  return {
    'application/json': JSON.stringify({
      error: { code, message, details: [], request_id: '$context.requestId' },
    }),
  };
}

/** What API Gateway answers itself, in the house shape, readable cross-origin. */
export function addGatewayResponses(restApi: apigateway.RestApi): void {
  const gatewayResponses: Array<[string, apigateway.ResponseType, string | undefined, string, string, Record<string, string>?]> = [
    // A team's plan, the stage or the account throttled the request, or the team's quota is spent.
    ['Throttled', apigateway.ResponseType.THROTTLED, '429', 'THROTTLED', THROTTLED_MESSAGE, { 'Retry-After': "'1'" }],
    [
      'QuotaExceeded',
      apigateway.ResponseType.QUOTA_EXCEEDED,
      '429',
      'QUOTA_EXCEEDED',
      "The team's usage plan quota for this period is used up.",
      { 'Retry-After': "'3600'" },
    ],
    // The authorizer refused the Bearer key (or there was none): the house 401.
    [
      'Unauthorized',
      apigateway.ResponseType.UNAUTHORIZED,
      '401',
      'UNAUTHORIZED',
      'The API key is missing or invalid: send "Authorization: Bearer <API key>".',
      {
        'WWW-Authenticate': `'Bearer realm="api-keys", error="invalid_token"'`,
      },
    ],
    // A team without an API Gateway key (not bootstrapped with a plan) cannot pass the usage plan.
    [
      'NoUsagePlan',
      apigateway.ResponseType.INVALID_API_KEY,
      '403',
      'FORBIDDEN',
      "The calling key's team has no usage plan: the operator runs npm run bootstrap -- --team-id <id> --plan <name>.",
    ],
    // REST APIs answer an unknown path with 403 "Missing Authentication Token"; the service (and the local runtime) say 404.
    ['RouteNotFound', apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', 'ROUTE_NOT_FOUND', 'No such route'],
    ['RequestTooLarge', apigateway.ResponseType.REQUEST_TOO_LARGE, '413', 'PAYLOAD_TOO_LARGE', 'Request body too large'],
    ['Default5xx', apigateway.ResponseType.DEFAULT_5XX, undefined, 'INTERNAL', 'Internal error'],
  ];
  for (const [id, type, statusCode, code, message, headers] of gatewayResponses) {
    restApi.addGatewayResponse(id, {
      type,
      statusCode,
      responseHeaders: { ...GATEWAY_CORS, ...headers },
      templates: errorTemplate(code, message),
    });
  }
}
