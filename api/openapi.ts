/**
 * The OpenAPI 3.1 document of the service, built from the zod schemas: the
 * request schemas the handlers validate with (lambda/shared/http/schemas/)
 * and the response schemas (api/responses.ts), by zod-openapi (zod 4's own
 * JSON Schema output). `npm run openapi` writes it to docs/openapi.json and
 * the typed client's types to client/schema.d.ts; a test fails when either
 * file is stale.
 */
import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { ROUTES, MAX_BODY_BYTES } from '../lambda/contract/routes';
import { createKeyRequestSchema } from '../lambda/routes/generate-api-key/schema';
import { regenerateKeyRequestSchema } from '../lambda/routes/regenerate-api-key/schema';
import { deleteKeyRequestSchema } from '../lambda/routes/delete-api-key/schema';
import { updateKeyRequestSchema } from '../lambda/routes/update-api-key/schema';
import { verifyKeyRequestSchema } from '../lambda/routes/verify-api-key/schema';
import { auditEventsRequestSchema, getKeyRequestSchema, listKeysRequestSchema, usageRequestSchema } from '../lambda/routes/list-api-keys/schema';
import {
  auditEventsResponseSchema,
  createKeyResponseSchema,
  deleteKeyResponseSchema,
  errorBodySchema,
  keyListResponseSchema,
  keyResponseSchema,
  regenerateKeyResponseSchema,
  usageResponseSchema,
  verifyKeyResponseSchema,
} from './responses';

/** The clock the request schemas read (`expires_at` must be in the future): irrelevant to their shape. */
const now = () => new Date();

const header = (description: string, schema: z.ZodType = z.string()) => schema.meta({ description });

/** Headers on every answer. */
const commonHeaders = {
  'X-Request-Id': header('The request id, also in the body (`meta.request_id` or `error.request_id`)'),
  'Cache-Control': header('Always `no-store`: some answers carry a key value'),
};
/** Headers on every answer to an authenticated caller: its own hourly limit (draft-ietf-httpapi-ratelimit-headers). */
const rateLimitHeaders = {
  RateLimit: header('The calling key\'s hourly limit: `"hourly";r=<remaining>;t=<seconds until reset>`').optional(),
  'RateLimit-Policy': header('`"hourly";q=<rate_limit>;w=3600`').optional(),
};
const retryAfter = { 'Retry-After': header('Seconds to wait before retrying', z.string().regex(/^[0-9]+$/)) };

const json = (schema: z.core.$ZodType) => ({ 'application/json': { schema } });

function error(description: string, extraHeaders: Record<string, z.ZodType> = {}, id?: string) {
  return {
    description,
    headers: z.object({ ...commonHeaders, ...rateLimitHeaders, ...extraHeaders }),
    content: json(errorBodySchema),
    ...(id ? { id } : {}),
  };
}

/** Error answers shared by routes, registered once under `components.responses`. */
const shared = {
  '400': error('`VALIDATION_FAILED` (each problem in `details`), `INVALID_JSON` or `CONFIRMATION_REQUIRED`', {}, 'BadRequest'),
  '401': error('`UNAUTHORIZED`: no, a malformed, an unknown, a revoked or a disabled key', {}, 'Unauthorized'),
  '403': error('`FORBIDDEN`: the key may not make this request (scope, IP, origin, environment, team)', {}, 'Forbidden'),
  '404': error('`NOT_FOUND`: no such key, or not the caller\'s team (the same answer either way)', {}, 'KeyNotFound'),
  '405': error('`METHOD_NOT_ALLOWED`', { Allow: header('The methods the path answers') }, 'MethodNotAllowed'),
  '413': error(`\`PAYLOAD_TOO_LARGE\`: a body over ${MAX_BODY_BYTES} bytes`, {}, 'PayloadTooLarge'),
  '415': error('`UNSUPPORTED_MEDIA_TYPE`: a body that is not `application/json`', {}, 'UnsupportedMediaType'),
  '422': error('`IDEMPOTENCY_KEY_REUSED`: this Idempotency-Key was used for a different request in the last 24 hours', {}, 'IdempotencyKeyReused'),
  '429': error(
    '`RATE_LIMITED` (the calling key\'s hourly limit), `THROTTLED` or `QUOTA_EXCEEDED` (the team\'s usage plan)',
    retryAfter,
    'RateLimited',
  ),
  '500': error('`INTERNAL`: only the request id is shown', {}, 'InternalError'),
  '503': error('`SERVICE_UNAVAILABLE`: storage is throttling; retry', retryAfter, 'ServiceUnavailable'),
};

/** The answers every management route shares, and the route's own (`extra`: a shared status, or a status and its words). */
function managementErrors(extra: Record<string, string | true>): ZodOpenApiResponsesObject {
  const own = Object.entries(extra).map(([status, description]) => [
    status,
    description === true ? shared[status as keyof typeof shared] : error(description),
  ]);
  const always = Object.entries(shared).filter(([status]) => status !== '404' && status !== '422');
  return { ...Object.fromEntries(always), ...Object.fromEntries(own) };
}

function ok(status: string, description: string, schema: z.ZodType, extraHeaders: Record<string, z.ZodType> = {}): ZodOpenApiResponsesObject {
  return { [status]: { description, headers: z.object({ ...commonHeaders, ...rateLimitHeaders, ...extraHeaders }), content: json(schema) } };
}

/** The key's entity tag (lambda/http/preconditions.ts), for an `If-Match` on its next change. */
const entityTag = {
  ETag: header('The key\'s revision, quoted (`"3"`): send it back as `If-Match` to change the key only if nobody changed it since'),
};

const ifMatch = {
  'If-Match': z
    .string()
    .optional()
    .meta({
      description:
        'The `ETag` of `get-api-key` or `update-api-key` (or `*`): the change is made only while the key is still at that revision, else 412 `PRECONDITION_FAILED` and nothing changes',
    }),
};
const preconditionFailed = error(
  '`PRECONDITION_FAILED`: the key changed since the `If-Match` tag was read (its current tag in `ETag`)',
  { ETag: header('The key\'s current entity tag') },
  'PreconditionFailed',
);

const idempotencyKey = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'Replays the first answer (with the value nulled) to a repeat of the same request for 24 hours; 422 for a different request' }),
});

const operations: Record<string, ZodOpenApiOperationObject> = {
  'generate-api-key': {
    operationId: 'createKey',
    summary: 'Create a key',
    description: 'Issues a key; its value is in this answer only.',
    tags: ['Keys'],
    requestParams: { header: idempotencyKey },
    requestBody: { required: true, content: json(createKeyRequestSchema(now)) },
    responses: {
      ...ok('201', 'The key, with its value (`data.key`) shown this once', createKeyResponseSchema),
      ...managementErrors({ '409': '`CONFLICT`: a request with this Idempotency-Key is being processed', '422': true }),
    },
  },
  'regenerate-api-key': {
    operationId: 'regenerateKey',
    summary: 'Roll a key to a new value',
    description: 'A new value, shown once; the old one keeps working for the grace period (1–30 days, default 7) unless `revoke_immediately`.',
    tags: ['Keys'],
    requestParams: { header: idempotencyKey.extend(ifMatch) },
    requestBody: { required: true, content: json(regenerateKeyRequestSchema) },
    responses: {
      ...ok('200', 'The new value and the transition', regenerateKeyResponseSchema),
      ...managementErrors({ '404': true, '409': '`CONFLICT`: the key is already in a transition', '422': true }),
      '412': preconditionFailed,
    },
  },
  'delete-api-key': {
    operationId: 'deleteKey',
    summary: 'Delete a key',
    description: 'Every value stops working at once; metadata kept 90 days, audit two years, usage for good.',
    tags: ['Keys'],
    requestParams: { header: z.object(ifMatch) },
    requestBody: { required: true, content: json(deleteKeyRequestSchema) },
    responses: {
      ...ok('200', 'What was deleted, with its usage', deleteKeyResponseSchema),
      ...managementErrors({ '404': true, '409': '`CONFLICT`: the team\'s last manager key' }),
      '412': preconditionFailed,
    },
  },
  'list-api-keys': {
    operationId: 'listKeys',
    summary: 'List a team\'s keys',
    tags: ['Keys'],
    requestParams: { query: listKeysRequestSchema },
    description:
      'Newest first. One request examines at most 1,000 of the team\'s keys: a filter that skips many may answer a short page, even an empty one, with a `next_cursor`; follow it until it is null.',
    responses: { ...ok('200', 'A page of keys, newest first', keyListResponseSchema), ...managementErrors({}) },
  },
  'get-api-key': {
    operationId: 'getKey',
    summary: 'Read a key',
    tags: ['Keys'],
    requestParams: { query: getKeyRequestSchema },
    description: 'A deleted key is answered from its tombstone for 90 days (`state` "deleted", `deleted_at`), then 404.',
    responses: { ...ok('200', 'The key (never its value)', keyResponseSchema, entityTag), ...managementErrors({ '404': true }) },
  },
  'update-api-key': {
    operationId: 'updateKey',
    summary: 'Change a key\'s settings, disable or enable it',
    tags: ['Keys'],
    requestParams: { header: z.object(ifMatch) },
    requestBody: { required: true, content: json(updateKeyRequestSchema(now)) },
    responses: {
      ...ok('200', 'The key after the change', keyResponseSchema, entityTag),
      ...managementErrors({ '404': true, '409': '`CONFLICT`: the change would leave the team without a manager key, or raced another change' }),
      '412': preconditionFailed,
    },
  },
  'get-api-key-usage': {
    operationId: 'getKeyUsage',
    summary: 'A key\'s usage',
    tags: ['Usage'],
    requestParams: { query: usageRequestSchema },
    responses: { ...ok('200', 'Totals, days, months and the transition split', usageResponseSchema), ...managementErrors({ '404': true }) },
  },
  'list-audit-events': {
    operationId: 'listAuditEvents',
    summary: 'A key\'s or a team\'s audit trail',
    tags: ['Audit'],
    requestParams: { query: auditEventsRequestSchema },
    responses: { ...ok('200', 'A page of events, newest first', auditEventsResponseSchema), ...managementErrors({ '404': true }) },
  },
  'verify-api-key': {
    operationId: 'verifyKey',
    summary: 'Verify a key value',
    description:
      'For the platform\'s own services: 200 whether or not the value is valid (`valid`, `code`). The value is in the body, not a header. No Authorization header; a valid value\'s use counts toward its rate limit.',
    tags: ['Verification'],
    security: [],
    requestBody: { required: true, content: json(verifyKeyRequestSchema) },
    responses: {
      '200': {
        description: 'The verdict',
        headers: z.object({ ...commonHeaders, ...rateLimitHeaders, 'Retry-After': retryAfter['Retry-After'].optional() }),
        content: json(verifyKeyResponseSchema),
      },
      '400': shared['400'],
      '405': shared['405'],
      '413': shared['413'],
      '415': shared['415'],
      '429': error('`RATE_LIMITED`: too many unknown values from this source in a minute', retryAfter),
      '500': shared['500'],
      '503': shared['503'],
    },
  },
};

/**
 * The words of each request field (body or query) in the reference: kept
 * here, not in the request schemas, so the handlers' bundles and their
 * start-up carry no documentation.
 */
const FIELD_DESCRIPTIONS: Record<string, string> = {
  name: 'A name for people (1–100 characters after trimming)',
  type: '`sk`: secret, for servers. `pk`: public, for browsers, restricted by `domains`',
  environment: '`live` or `test`; a test key may only manage test keys',
  team_id: 'The team the key belongs to: the calling key\'s own team',
  scopes: 'Permission scopes: `<area>.<resource>:<action>`, `<area>.*:<action>` or `<area>.manage`. Default on create `["enc.tiles:read"]`; never more than the calling key holds',
  domains: 'Public keys: allowed origins (`https://app.example.com`, `https://*.example.com`), checked against `Origin` and `Referer`',
  ip_whitelist: 'Allowed IPv4/IPv6 addresses or CIDR blocks; empty: any address',
  rate_limit: 'Requests per hour; default: the team\'s plan limit',
  expires_at: 'When the key stops working (ISO 8601 with a time zone, in the future); null or absent: never',
  description: 'Free-text notes (up to 1,000 characters)',
  key_id: 'The key\'s id',
  grace_period_days: 'How long the old value keeps working: 1 to 30 days, default 7',
  revoke_immediately: 'True: the old value stops working now (no grace period)',
  confirm_deletion: 'Must be `true`',
  reason: 'Why, kept in the audit trail',
  key: 'The presented key value',
  scope: 'A scope the caller needs; the answer is `SCOPE_DENIED` when the key does not hold it',
  is_active: 'False disables every value of the key until it is enabled again',
  days: 'How many days of `daily` figures: 1 to 90, default 30',
  limit: 'Page size: 1 to 100, default 20',
  cursor: 'The `meta.next_cursor` of the previous page',
  state: 'Only keys in this state',
};

interface DescribedOperation {
  parameters?: Array<{ name: string; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { description?: string }> } }> };
}

/** Adds the field words to every request body property and query parameter that has none. */
function describeFields(document: { paths?: Record<string, unknown> }): void {
  for (const item of Object.values(document.paths ?? {}) as Record<string, DescribedOperation>[]) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (!parameter.description && FIELD_DESCRIPTIONS[parameter.name]) parameter.description = FIELD_DESCRIPTIONS[parameter.name];
      }
      const properties = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      for (const [name, schema] of Object.entries(properties)) {
        if (!schema.description && FIELD_DESCRIPTIONS[name]) schema.description = FIELD_DESCRIPTIONS[name];
      }
    }
  }
}

export function openApiDocument(): ReturnType<typeof createDocument> {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const route of ROUTES) {
    const operation = operations[route.handler];
    if (!operation) throw new Error(`openapi: no operation for ${route.handler}`);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'API key service',
      version: '1.0.0',
      description:
        'Issues, rolls, verifies and revokes the API keys of a platform API. Every management call authenticates with `Authorization: Bearer <key>` of a key holding `keys.manage`; every authenticated call is a use of that key and counts toward its hourly `rate_limit`. A key value appears only in the answer that issues it.',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: '`npm start` (the port it prints)' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Keys', description: 'Create, read, change, roll and delete keys' },
      { name: 'Usage', description: 'What a key was used for' },
      { name: 'Audit', description: 'Who changed what, and when' },
      { name: 'Verification', description: 'Checking a presented value' },
    ],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A key value holding the `keys.manage` scope' } },
    },
    paths,
  });
  describeFields(document);
  return document;
}
