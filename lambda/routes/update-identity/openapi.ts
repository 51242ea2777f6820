/** The reference of update-identity (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { error, header, ifMatch, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { identityResponseSchema } from '../../http/identity-response-schemas';
import { updateIdentityRequestSchema } from './schema';
import type { IdentityResource } from '../../domain/identities';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'updateIdentity',
  summary: 'Change an identity',
  description: '`meta` is replaced whole. A change that changes nothing answers the identity as it is and writes no audit record.',
  tags: ['Identities'],
  requestParams: { header: z.object(ifMatch) },
  requestBody: { required: true, content: json(updateIdentityRequestSchema) },
  responses: {
    ...ok('200', 'The identity as it now is', identityResponseSchema, {
      ETag: header('The identity\'s revision, quoted (`"3"`): send it back as `If-Match` to change it only if nobody changed it since'),
    }),
    ...managementErrors({
      '404': true,
      '409': '`CONFLICT`: another identity of the team has this `external_id`, or another change of the identity won a race with this one',
    }),
    '412': error('`PRECONDITION_FAILED`: the identity changed since the `If-Match` tag was read (its current tag in `ETag`)', {
      ETag: header("The identity's current entity tag"),
    }),
  },
};

export const answerFitsReference = true satisfies Fits<IdentityResource, z.output<typeof identityResponseSchema>['data']>;
