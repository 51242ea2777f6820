/** The documented answers of the audit checkpoint routes (read by their openapi.ts only). */
import * as z from 'zod';
import { instant, meta } from './response-schemas';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const auditCheckpointSchema = z
  .strictObject({
    team_id: z.string(),
    seq: z.int().min(1).meta({ description: "The team's chain had this many records when it was signed" }),
    hash: hex64.meta({ description: 'The `hash` of the record at `seq`' }),
    at: instant.meta({ description: 'When it was signed' }),
    signature: z.string().meta({ description: 'ECDSA P-256 / SHA-256 over the canonical JSON of {at, hash, seq, team_id}, DER, base64' }),
    key_id: z.string().meta({ description: 'The signing key: its `key_id` among the signing keys (its RFC 7638 JWK thumbprint)' }),
  })
  .meta({ id: 'AuditCheckpoint' });

export const auditCheckpointResponseSchema = z.strictObject({ data: auditCheckpointSchema, meta }).meta({ id: 'AuditCheckpointResponse' });

export const auditPublicKeySchema = z
  .strictObject({
    key_id: z.string(),
    pem: z.string().meta({ description: 'SubjectPublicKeyInfo, PEM: `openssl dgst -sha256 -verify` takes it as it is' }),
    jwk: z.strictObject({ kty: z.literal('EC'), crv: z.literal('P-256'), x: z.string(), y: z.string() }),
    created_at: instant,
  })
  .meta({ id: 'AuditSigningKey' });

export const auditPublicKeysResponseSchema = z.strictObject({ data: z.array(auditPublicKeySchema) }).meta({ id: 'AuditSigningKeysResponse' });
