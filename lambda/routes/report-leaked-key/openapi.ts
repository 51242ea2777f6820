/** The reference of report-leaked-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { apiKeySchema, meta } from '../../http/response-schemas';
import { LEAK_ACTIONS } from '../../domain/leaks';
import { reportLeakedKeyRequestSchema } from './schema';
import type { TeamLeakAnswer } from '../../use-cases/leak-reports';

export const reportLeakedKeyResponseSchema = z
  .strictObject({
    data: z.strictObject({
      action: z.enum(LEAK_ACTIONS).meta({
        description:
          '`disabled`: the key stopped (on_leak `disable`); `already_disabled`: it was; `notified`: on_leak `notify`, the key keeps working; `old_value_revoked`: the old value of a transition stopped, the new value works on',
      }),
      value: z
        .enum(['current', 'previous'])
        .meta({ description: 'Which of the key’s values was reported: its current value, or the old value of a transition' }),
      key: apiKeySchema,
    }),
    meta,
  })
  .meta({ id: 'ReportLeakedKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'reportLeakedKey',
  summary: 'Report a value found leaked',
  description:
    'A value of a key of the calling key’s team, found where it should not be (a ticket, a log). By the key’s `on_leak`, the key is disabled at once or keeps working; a leaked old value of a transition stops at once whatever `on_leak` says. Audited as `key.leaked` and sent as the `key.leaked` event. A value of another team answers 404 as an unknown value does.',
  tags: ['Keys'],
  requestParams: { header: idempotencyKey },
  requestBody: { required: true, content: json(reportLeakedKeyRequestSchema) },
  responses: {
    ...ok('200', 'What the report did, and the key as it now is', reportLeakedKeyResponseSchema),
    ...managementErrors({ '404': true, '422': true }),
  },
};

/** The use case's answer fits the documented response. */
export const answerFitsReference = true satisfies Fits<TeamLeakAnswer, z.output<typeof reportLeakedKeyResponseSchema>['data']>;
