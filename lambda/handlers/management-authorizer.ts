/** REQUEST authorizer of the management routes: the caller's team, for its usage plan. See lambda/http/management-authorizer.ts. */
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizeManagementCall } from '../http/management-authorizer';
import { UNAUTHORIZED } from '../http/management-authorizer';
import { signals } from '../platform/observability';
import { observedApi } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';

type Services = HandlerPorts<'management-authorizer'>;

/** The `ManagementAuthorizations` code of an answer: ALLOW, the refusal the handler will answer, UNAUTHORIZED or ERROR. */
function outcomeOf(response: APIGatewayAuthorizerResult | null | undefined, error: unknown): string {
  if (response) return typeof response.context?.refusal === 'string' && response.context.refusal !== '' ? response.context.refusal : 'ALLOW';
  return error instanceof Error && error.message === UNAUTHORIZED ? 'UNAUTHORIZED' : 'ERROR';
}

export const makeHandler = (services: () => Services) =>
  middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>({ timeoutEarlyInMillis: 0 })
    .use(
      observedApi<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>(services, {
        route: () => 'management-authorizer',
        settle: (o, request) => signals.managementAuthorization(o, outcomeOf(request.response, request.error)),
      }),
    )
    .handler((event) => authorizeManagementCall(services(), event));

export const handler = makeHandler(handlerServices('management-authorizer'));
