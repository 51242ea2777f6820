/** The reference of get-team-settings (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { header, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { teamSettingsResponseSchema } from '../../http/team-settings-schemas';
import { getTeamSettingsRequestSchema } from './schema';
import type { TeamSettings } from '../../use-cases/team-settings';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getTeamSettings',
  summary: "Read the team's settings",
  description: "The team's unused-key policy: keys with no VALID use in `disable_unused_after_days` are disabled by a daily job (null: never).",
  tags: ['Teams'],
  requestParams: { query: getTeamSettingsRequestSchema },
  responses: {
    ...ok('200', "The team's settings", teamSettingsResponseSchema, { ETag: header("The settings' revision, quoted: the `If-Match` of their next change") }),
    ...managementErrors({ '404': true }),
  },
};

export const answerFitsReference = true satisfies Fits<TeamSettings, z.output<typeof teamSettingsResponseSchema>['data']>;
