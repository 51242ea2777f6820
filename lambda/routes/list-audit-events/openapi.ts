/** The reference of list-audit-events: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { auditEventSchema } from '../../domain/audit-event-schema';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { pageMeta } from '../../http/response-schemas';
import { auditEventsRequestSchema } from './schema';
import type { AuditPage } from '../../use-cases/audit-trail';

export const auditEventsResponseSchema = z.strictObject({ data: z.array(auditEventSchema), meta: pageMeta }).meta({ id: 'AuditEventsResponse' });

// The archive's own event schema (zod/mini, shared with the handlers), named in the document's components.
z.globalRegistry.add(auditEventSchema, { id: 'AuditEvent' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'listAuditEvents',
  summary: "A key's or a team's audit trail",
  tags: ['Audit'],
  requestParams: { query: auditEventsRequestSchema },
  responses: { ...ok('200', 'A page of events, newest first', auditEventsResponseSchema), ...managementErrors({ '404': true }) },
};

/** The audit page's events fit the documented events. */
export const answerFitsReference = true satisfies Fits<AuditPage['data'], z.output<typeof auditEventsResponseSchema>['data']>;
