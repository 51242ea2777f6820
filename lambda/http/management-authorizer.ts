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
 * key refused for this request (IP, origin, no `keys.manage`) is allowed
 * through with its refusal in the context: the handler records its use and
 * answers the 403. A team without an API Gateway key gets no usage
 * identifier: API Gateway answers 403 (no usage plan).
 *
 * The context carries the checked key, so the handler does not read the
 * value's lookup a second time (`callerFromAuthorizer`).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiError, ErrorCode } from '../contract/errors';
import type { TeamStore } from '../store/team-store';
import { authenticateManager, type AuthenticatedCaller } from './authentication';
import { sourceAddressOf } from './source-address';
import type { AdmissionCode, CheckedKey, VerifyFailureCode, VerifyServices } from '../verification/verify';

/** API Gateway turns exactly this error message into 401. */
export const UNAUTHORIZED = 'Unauthorized';

export async function authorizeManagementCall(
  services: VerifyServices & { readonly teams: TeamStore },
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  // The handler's own authentication, once: a 401 there is API Gateway's 401 here.
  let caller: AuthenticatedCaller;
  try {
    caller = await authenticateManager(services, {
      headers: event.headers,
      multiValueHeaders: event.multiValueHeaders,
      sourceIp: sourceAddressOf(event),
    });
  } catch (error) {
    // An authorizer answers only Allow, Deny or Unauthorized: several Authorization headers are Unauthorized here (400 from the handler itself).
    if (error instanceof ApiError && (error.code === ErrorCode.UNAUTHORIZED || error.code === ErrorCode.VALIDATION_FAILED)) {
      throw new Error(UNAUTHORIZED, { cause: error });
    }
    throw error;
  }
  const { checked } = caller;
  const team = await services.teams.getTeam(checked.key.team_id);
  const { key, transition } = checked;
  return {
    principalId: key.id,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
    context: {
      key_id: key.id,
      team_id: key.team_id,
      plan: team?.plan ?? '',
      name: key.name,
      key_type: key.type,
      environment: key.environment,
      scopes: key.scopes.join(' '),
      created_by: key.created_by,
      rate_limit: key.rate_limit,
      slot: key.slot,
      old_value_ends_at: key.old_value_ends_at ?? '',
      old_value_since: key.old_value_since ?? '',
      transition_generation: transition?.generation ?? 0,
      transition_role: transition?.role ?? '',
      refusal: caller.refusalCode ?? '',
    },
    ...(team ? { usageIdentifierKey: team.usage_key } : {}),
  };
}

/**
 * The caller as the management authorizer checked it, from the context API
 * Gateway (or the local gateway stage) hands the handler; undefined when the
 * request did not pass that authorizer (a direct invocation). Only the
 * authorizer writes this context: a client cannot set it.
 */
export function callerFromAuthorizer(context: unknown): { checked: CheckedKey; refusal?: Exclude<VerifyFailureCode, AdmissionCode> } | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const c = context as Record<string, unknown>;
  if (typeof c.key_id !== 'string' || typeof c.team_id !== 'string' || typeof c.scopes !== 'string') return undefined;
  const generation = Number(c.transition_generation);
  const checked: CheckedKey = {
    key: {
      id: c.key_id,
      team_id: c.team_id,
      name: String(c.name),
      type: c.key_type === 'pk' ? 'pk' : 'sk',
      environment: c.environment === 'test' ? 'test' : 'live',
      scopes: c.scopes === '' ? [] : c.scopes.split(' '),
      created_by: String(c.created_by),
      rate_limit: Number(c.rate_limit),
      slot: c.slot === 'previous' ? 'previous' : 'current',
      ...(typeof c.old_value_ends_at === 'string' && c.old_value_ends_at !== '' ? { old_value_ends_at: c.old_value_ends_at } : {}),
      ...(typeof c.old_value_since === 'string' && c.old_value_since !== '' ? { old_value_since: c.old_value_since } : {}),
    },
    transition: generation > 0 ? { generation, role: c.transition_role === 'old' ? 'old' : 'new' } : undefined,
  };
  const refusal = typeof c.refusal === 'string' && c.refusal !== '' ? (c.refusal as Exclude<VerifyFailureCode, AdmissionCode>) : undefined;
  return { checked, refusal };
}
