/** The reference of update-team-settings (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { error, header, ifMatch, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { teamSettingsResponseSchema } from '../../http/team-settings-schemas';
import { updateTeamSettingsRequestSchema } from './schema';
import type { TeamSettings } from '../../use-cases/team-settings';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'updateTeamSettings',
  summary: "Change the team's settings",
  description:
    '`disable_unused_after_days` (30–730, or null for none): a daily job disables the keys with no VALID use in that many days (never the team’s last manager key), ' +
    'sending `key.unused` 7 days before and `key.disabled` with `reason: "unused"`. Audited as `team.settings_updated`; a change that changes nothing writes nothing.',
  tags: ['Teams'],
  requestParams: { header: z.object(ifMatch) },
  requestBody: { required: true, content: json(updateTeamSettingsRequestSchema) },
  responses: {
    ...ok('200', 'The settings as they now are', teamSettingsResponseSchema, {
      ETag: header("The settings' revision, quoted: send it back as `If-Match` to change them only if nobody changed them since"),
    }),
    ...managementErrors({ '404': true, '409': '`CONFLICT`: another change of the settings won a race with this one' }),
    '412': error('`PRECONDITION_FAILED`: the settings changed since the `If-Match` tag was read (their current tag in `ETag`)', {
      ETag: header("The settings' current entity tag"),
    }),
  },
};

export const answerFitsReference = true satisfies Fits<TeamSettings, z.output<typeof teamSettingsResponseSchema>['data']>;
