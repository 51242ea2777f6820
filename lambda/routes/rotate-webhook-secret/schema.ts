import * as z from 'zod/mini';
import { endpointIdSchema } from '../../http/schemas/webhooks';

export const rotateSecretRequestSchema = z.strictObject({ endpoint_id: endpointIdSchema });
