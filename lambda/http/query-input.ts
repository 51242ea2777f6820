/** The query string of a GET read strictly (the management routes' `input: 'query'`). */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type * as z from 'zod/mini';
import { ApiError, ErrorCode, type ErrorDetail } from '../contract/errors';
import { withoutKeyValues } from '../platform/redaction';
import { clientNamedMap } from '../platform/client-named-map';
import type { ManagementEvent } from './event';
import { validated } from './middleware';

type AnyEvent = ManagementEvent<unknown>;
type HttpRequest = Request<AnyEvent, APIGatewayProxyResult>;

/**
 * Reads the query string of a GET strictly: every parameter at most once
 * (but the route's `repeatable` ones, each then a list), no body, then the
 * schema (unknown parameters are refused like unknown body fields).
 * Handlers get `event.input`.
 */
export function queryInput<TSchema extends z.ZodMiniType>(
  schemaFor: () => TSchema,
  repeatable: readonly string[] = [],
): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'queryInput',
    before: (request: HttpRequest) => {
      const { event } = request;
      if ((event.body ?? '') !== '') throw new ApiError(ErrorCode.VALIDATION_FAILED, 'This request takes no body: send its input as query parameters.');
      // A parameter named like an Object.prototype member is just a parameter.
      const multi = clientNamedMap(Object.entries(event.multiValueQueryStringParameters ?? {}).map(([name, values]) => [name, values ?? []] as const));
      const repeated = Object.entries(multi).filter(([name, values]) => values.length > 1 && !repeatable.includes(name));
      const details: ErrorDetail[] = repeated.map(([name]) => ({ field: withoutKeyValues(name), issue: 'must be given once' }));
      if (details.length > 0) throw new ApiError(ErrorCode.VALIDATION_FAILED, 'A query parameter was given more than once.', details);
      const params = clientNamedMap<string | string[]>(
        Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      for (const name of repeatable) if (params[name] !== undefined) params[name] = multi[name] ?? [params[name] as string];
      event.input = validated(schemaFor(), { ...params }, 'parameter');
    },
  };
}
