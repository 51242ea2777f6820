/** The query of the delivery list (unknown parameters are refused). */
import * as z from 'zod/mini';
import { countParameter, cursorParameter } from '../../http/schemas/common';
import { endpointIdSchema } from '../../http/schemas/webhooks';

export const listDeliveriesRequestSchema = z.strictObject({
  endpoint_id: endpointIdSchema,
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
