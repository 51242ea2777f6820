import * as z from 'zod/mini';
import { endpointDescriptionSchema, endpointIdSchema, endpointUrlSchema, eventFilterSchema } from '../../http/schemas/webhooks';

export const updateEndpointRequestSchema = z.strictObject({
  endpoint_id: endpointIdSchema,
  url: z.optional(endpointUrlSchema),
  description: z.optional(endpointDescriptionSchema),
  events: z.optional(eventFilterSchema),
  is_active: z.optional(z.boolean({ error: 'must be true or false' })),
});
