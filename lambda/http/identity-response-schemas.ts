/** The documented shape of an identity (read by the routes' openapi.ts only). */
import * as z from 'zod';
import { MAX_EXTERNAL_ID_LENGTH } from '../domain/identities';
import { instant, meta, meterFields, pageMeta } from './response-schemas';

export const identityId = z.string().meta({ description: 'Identity id (a 26-character ULID)', example: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ' });

export const identitySchema = z
  .strictObject({
    id: identityId,
    team_id: z.string(),
    external_id: z.string().max(MAX_EXTERNAL_ID_LENGTH).meta({ description: "The platform's own id of the identity, unique in the team" }),
    meta: z.record(z.string(), z.unknown()).meta({ description: 'Metadata the platform reads back (a JSON object of at most 4 KB)' }),
    key_count: z.int().min(0).meta({ description: 'How many keys name the identity (`identity_id`); it is deleted only at 0, or with `detach_keys`' }),
    ...meterFields,
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: 'Identity' });

export const identityResponseSchema = z.strictObject({ data: identitySchema, meta }).meta({ id: 'IdentityResponse' });
export const identityListResponseSchema = z.strictObject({ data: z.array(identitySchema), meta: pageMeta }).meta({ id: 'IdentityListResponse' });
