/** The reference of list-identities (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { identityListResponseSchema } from '../../http/identity-response-schemas';
import { listIdentitiesRequestSchema } from './schema';
import type { IdentityResource } from '../../domain/identities';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'listIdentities',
  summary: "List a team's identities",
  description: 'Oldest first, paged by `cursor`. With `external_id`, the one identity that has it (or none), strongly consistent, on one page.',
  tags: ['Identities'],
  requestParams: { query: listIdentitiesRequestSchema },
  responses: { ...ok('200', 'A page of identities', identityListResponseSchema), ...managementErrors({}) },
};

export const answerFitsReference = true satisfies Fits<IdentityResource[], z.output<typeof identityListResponseSchema>['data']>;
