/** The reference of audit-public-key (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { ok, type Fits } from '../../http/openapi-common';
import { auditPublicKeysResponseSchema } from '../../http/audit-checkpoint-schemas';
import { auditPublicKeyRequestSchema } from './schema';
import type { SigningKeyRecord } from '../../domain/audit-checkpoints';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'auditPublicKey',
  summary: 'The keys that sign audit checkpoints',
  description:
    'Every key that ever signed an audit checkpoint, oldest first, as PEM (SubjectPublicKeyInfo) and JWK. No authentication. Keep a copy: a checkpoint is checked with it offline (docs/audit.md).',
  tags: ['Audit'],
  security: [],
  requestParams: { query: auditPublicKeyRequestSchema },
  responses: { ...ok('200', 'The signing keys', auditPublicKeysResponseSchema) },
};

export const answerFitsReference = true satisfies Fits<SigningKeyRecord[], z.output<typeof auditPublicKeysResponseSchema>['data']>;
