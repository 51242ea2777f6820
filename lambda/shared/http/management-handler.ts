import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { KEYS_MANAGE } from '../../contract/scopes';
import type { ManagementEvent } from './event';
import { authenticate, errorResponses, jsonBody, meterUsage } from './middleware';

/**
 * Wraps a management endpoint's handler with the house middleware stack:
 * errors → authentication (`keys.manage`) → strict body → usage metering.
 */
export function managementHandler<TSchema extends z.ZodType>(
  schemaFor: () => TSchema,
  lambdaHandler: (event: ManagementEvent<z.infer<TSchema>>, context: Context) => Promise<APIGatewayProxyResult>,
  options: { confirmationField?: string } = {},
) {
  return middy<ManagementEvent<unknown>, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(errorResponses())
    .use(authenticate({ scope: KEYS_MANAGE }))
    .use(jsonBody(schemaFor, options))
    .use(meterUsage())
    .handler((event, context) => lambdaHandler(event as ManagementEvent<z.infer<TSchema>>, context));
}
