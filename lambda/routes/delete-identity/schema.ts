import * as z from 'zod/mini';
import { identityIdSchema } from '../../http/schemas/identities';

export const deleteIdentityRequestSchema = z.strictObject({ identity_id: identityIdSchema });
