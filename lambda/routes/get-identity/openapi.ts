/** The reference of get-identity (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { header, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { identityResponseSchema } from '../../http/identity-response-schemas';
import { getIdentityRequestSchema } from './schema';
import type { IdentityResource } from '../../domain/identities';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getIdentity',
  summary: 'Read an identity',
  tags: ['Identities'],
  requestParams: { query: getIdentityRequestSchema },
  responses: {
    ...ok('200', 'The identity', identityResponseSchema, { ETag: header("The identity's revision, quoted: the `If-Match` of its next change") }),
    ...managementErrors({ '404': true }),
  },
};

export const answerFitsReference = true satisfies Fits<IdentityResource, z.output<typeof identityResponseSchema>['data']>;
