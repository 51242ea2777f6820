/** The reference of github-secret-scanning: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { commonHeaders, error, header, json, ok, retryAfter, shared, type Fits } from '../../http/openapi-common';
import { KEY_IDENTIFIER_HEADER, SIGNATURE_HEADER } from '../../http/github-signature';
import { githubReportSchema } from './schema';
import type { TokenLabel } from '../../use-cases/leak-reports';

export const githubReportResponseSchema = z
  .array(
    z.strictObject({
      token_hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .meta({ description: 'SHA-256 (hex) of the reported token: the token itself is never echoed' }),
      token_type: z.string().meta({ description: 'The `type` GitHub sent' }),
      label: z.enum(['true_positive', 'false_positive']).meta({
        description: '`true_positive`: a value of a key of this service (live, disabled, or the old value of a transition); `false_positive`: anything else',
      }),
    }),
  )
  .meta({ id: 'GithubSecretScanningResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'githubSecretScanning',
  summary: "GitHub secret scanning's partner endpoint",
  description:
    'GitHub sends values of this service’s shape found in public code (docs/secret-scanning.md). No API key: the body must be signed by a published GitHub secret-scanning key (ECDSA P-256, SHA-256, base64 DER, over the raw bytes), checked before the body is read. Each value of a key of this service is acted on by the key’s `on_leak` at once and audited as `key.leaked`.',
  tags: ['Verification'],
  security: [],
  requestParams: {
    header: z.object({
      [KEY_IDENTIFIER_HEADER]: z.string().max(200).meta({ description: 'The identifier of the GitHub key that signed the body' }),
      [SIGNATURE_HEADER]: z.string().max(200).meta({ description: 'Base64 DER ECDSA P-256 SHA-256 signature of the raw body' }),
    }),
  },
  requestBody: { required: true, content: json(githubReportSchema) },
  responses: {
    ...ok('200', 'Every reported token labelled, in the order sent', githubReportResponseSchema),
    '400': shared['400'],
    '401': error('`UNAUTHORIZED`: unsigned, signed by no published key, or a signature that does not sign this body; nothing was read or changed', {
      'WWW-Authenticate': header(`\`GitHub-Signature realm="secret-scanning-reports", headers="${KEY_IDENTIFIER_HEADER} ${SIGNATURE_HEADER}"\``),
    }),
    '405': shared['405'],
    '413': error('`PAYLOAD_TOO_LARGE`: a body over 1 MiB'),
    '415': shared['415'],
    '429': error('`THROTTLED`: the endpoint’s own throttle', retryAfter),
    '500': shared['500'],
    '503': error("`SERVICE_UNAVAILABLE`: GitHub's keys could not be read; retry later", { ...commonHeaders, ...retryAfter }),
  },
};

/** The answer fits the documented response. */
export const answerFitsReference = true satisfies Fits<TokenLabel[], z.output<typeof githubReportResponseSchema>>;
