/** The reference of create-identity (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { header, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { identityResponseSchema } from '../../http/identity-response-schemas';
import { createIdentityRequestSchema } from './schema';
import type { IdentityResource } from '../../domain/identities';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'createIdentity',
  summary: 'Add an identity',
  description:
    "An identity is a customer of the platform (a user, an organisation), named by the platform's own id: `external_id`, unique in the team. `meta` (a JSON object of at most 4 KB) is returned as given.",
  tags: ['Identities'],
  requestBody: { required: true, content: json(createIdentityRequestSchema) },
  responses: {
    ...ok('201', 'The identity', identityResponseSchema, {
      ETag: header('The identity\'s revision, quoted (`"1"`): send it back as `If-Match` to change it only if nobody changed it since'),
    }),
    ...managementErrors({ '409': '`CONFLICT`: another identity of the team has this `external_id`' }),
  },
};

export const answerFitsReference = true satisfies Fits<IdentityResource, z.output<typeof identityResponseSchema>['data']>;
