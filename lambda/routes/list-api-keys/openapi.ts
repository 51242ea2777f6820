/** The reference of list-api-keys: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { apiKeySchema, pageMeta } from '../../http/response-schemas';
import { listKeysRequestSchema } from './schema';
import type { KeyPage } from '../../use-cases/read-keys';

export const keyListResponseSchema = z.strictObject({ data: z.array(apiKeySchema), meta: pageMeta }).meta({ id: 'KeyListResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'listKeys',
  summary: "List a team's keys",
  tags: ['Keys'],
  requestParams: { query: listKeysRequestSchema },
  description:
    "Newest first. One request examines at most 1,000 of the team's keys: a filter that skips many may answer a short page, even an empty one, with a `next_cursor`; follow it until it is null.",
  responses: { ...ok('200', 'A page of keys, newest first', keyListResponseSchema), ...managementErrors({}) },
};

/** The list use case's page fits the documented keys. */
export const answerFitsReference = true satisfies Fits<KeyPage['data'], z.output<typeof keyListResponseSchema>['data']>;
