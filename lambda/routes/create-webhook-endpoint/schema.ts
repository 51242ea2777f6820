import * as z from 'zod/mini';
import { teamIdSchema } from '../../http/schemas/common';
import { endpointDescriptionSchema, endpointUrlSchema, eventFilterSchema } from '../../http/schemas/webhooks';

export const createEndpointRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  url: endpointUrlSchema,
  description: z.optional(endpointDescriptionSchema),
  events: z.optional(eventFilterSchema),
});
