/** The reference of get-audit-checkpoint (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { auditCheckpointResponseSchema } from '../../http/audit-checkpoint-schemas';
import { getAuditCheckpointRequestSchema } from './schema';
import type { SignedCheckpoint } from '../../domain/audit-checkpoints';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getAuditCheckpoint',
  summary: "The team's latest signed audit checkpoint",
  description:
    "Signed every hour the team's audit chain moved: the chain's length (`seq`) and last hash, signed with ECDSA P-256. Check it with the signing key's PEM and `npm run verify-audit` or openssl (docs/audit.md). 404 until the first checkpoint.",
  tags: ['Audit'],
  requestParams: { query: getAuditCheckpointRequestSchema },
  responses: { ...ok('200', "The team's latest checkpoint", auditCheckpointResponseSchema), ...managementErrors({ '404': true }) },
};

export const answerFitsReference = true satisfies Fits<SignedCheckpoint, z.output<typeof auditCheckpointResponseSchema>['data']>;
