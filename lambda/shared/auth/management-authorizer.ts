/**
 * The management routes' REQUEST authorizer in API Gateway (and, before
 * every management handler, in the local runtime): it authenticates the
 * Bearer key and names the key's team's API Gateway key as the usage
 * identifier, so API Gateway applies the team's usage plan (throttle and
 * quota) before the handler runs. Result cache off: a deleted key stops on
 * the next request. The handler still authenticates and authorizes in full
 * (scope, IP, environment, metering); this only answers "which team".
 *
 * No key, or a value that is not a valid key → `Unauthorized` (401). A valid
 * key refused for this request (IP, origin) is allowed through: the handler
 * answers its 403 and records its use. A team without an API Gateway key
 * gets no usage identifier: API Gateway answers 403 (no usage plan).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { header } from '../http/headers';
import type { Services } from '../platform/services';
import { bearerToken } from './authorization';
import { checkKey } from './verify';

/** API Gateway turns exactly this error message into 401. */
export const UNAUTHORIZED = 'Unauthorized';

export async function authorizeManagementCall(services: Services, event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const bearer = bearerToken(event);
  if (bearer.kind !== 'token') throw new Error(UNAUTHORIZED);
  const result = await checkKey(services, {
    value: bearer.value,
    sourceIp: event.requestContext?.identity?.sourceIp,
    origin: header(event, 'origin'),
    referer: header(event, 'referer'),
  });
  const checked = result.valid ? result.checked : result.refusedKey;
  if (!checked) throw new Error(UNAUTHORIZED);
  const team = await services.keys.getTeam(checked.key.team_id);
  return {
    principalId: checked.key.id,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
    context: { key_id: checked.key.id, team_id: checked.key.team_id, plan: team?.plan ?? '' },
    ...(team ? { usageIdentifierKey: team.usage_key } : {}),
  };
}
