/** The reference of delete-identity (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { meta } from '../../http/response-schemas';
import { identityId } from '../../http/identity-response-schemas';
import { deleteIdentityRequestSchema } from './schema';

export const deletedIdentityResponseSchema = z
  .strictObject({ data: z.strictObject({ deleted: z.literal(true), id: identityId }), meta })
  .meta({ id: 'DeletedIdentityResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'deleteIdentity',
  summary: 'Remove an identity',
  description:
    'Its `external_id` is free again for another identity of the team. Refused (409) while keys name it, unless `detach_keys` is true: each of its keys is then taken out of it first (its `identity_id` cleared, audited as `key.updated`).',
  tags: ['Identities'],
  requestBody: { required: true, content: json(deleteIdentityRequestSchema) },
  responses: {
    ...ok('200', 'The identity is gone', deletedIdentityResponseSchema),
    ...managementErrors({
      '404': true,
      '409': '`CONFLICT`: keys name the identity (send `detach_keys: true`), or it changed while it was being deleted; read it again and retry',
    }),
  },
};

export const answerFitsReference = true satisfies Fits<{ deleted: true; id: string }, z.output<typeof deletedIdentityResponseSchema>['data']>;
