/** REQUEST authorizer of the management routes: the caller's team, for its usage plan. See lambda/shared/auth/management-authorizer.ts. */
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizeManagementCall } from '../shared/auth/management-authorizer';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>({ timeoutEarlyInMillis: 0 }).handler((event) =>
    authorizeManagementCall(services(), event),
  );

export const handler = makeHandler(environmentServices);
