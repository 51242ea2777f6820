import * as z from 'zod/mini';
import { identityIdSchema } from '../../http/schemas/identities';

export const getIdentityRequestSchema = z.strictObject({ identity_id: identityIdSchema });
