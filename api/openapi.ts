/**
 * The OpenAPI 3.1 document of the service, built from the zod schemas by
 * zod-openapi (zod 4's own JSON Schema output): each route's operation is in
 * its folder (lambda/routes/<route>/openapi.ts: its response schema, and the
 * request schema its handler validates with, from schema.ts). `npm run openapi` writes it to docs/openapi.json and
 * the typed client's types to client/schema.d.ts; a test fails when either
 * file is stale.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { ROUTES, ROUTES_DIR } from '../lambda/routes';

/**
 * What a route's `openapi.ts` exports: its operation, and
 * `answerFitsReference = true satisfies Fits<…>` (lambda/http/openapi-common.ts),
 * the compile-time check that what its use case answers fits the documented
 * response.
 */
export interface RouteReference {
  readonly operation: ZodOpenApiOperationObject;
  readonly answerFitsReference: true;
}

const load = createRequire(__filename);

/**
 * The operation of route `name`'s reference module (`lambda/routes/<name>/openapi.ts`),
 * or an error naming the folder and the export it lacks.
 */
export function operationIn(name: string, reference: Partial<RouteReference>): ZodOpenApiOperationObject {
  if (!reference.operation) throw new Error(`openapi: lambda/routes/${name}/openapi.ts exports no operation`);
  if (reference.answerFitsReference !== true) {
    throw new Error(
      `openapi: lambda/routes/${name}/openapi.ts exports no answerFitsReference (\`export const answerFitsReference = true satisfies Fits<what the use case answers, the documented data>\`, lambda/http/openapi-common.ts)`,
    );
  }
  return reference.operation;
}

/**
 * A route's operation, from its folder (`lambda/routes/<route>/openapi.ts`):
 * found by the registry's name, so the registry stays the only list of
 * routes and stays free of zod (the CDK app reads it at synth).
 */
function operationOf(name: string): ZodOpenApiOperationObject {
  return operationIn(name, load(path.join(ROUTES_DIR, name, 'openapi')) as Partial<RouteReference>);
}

/**
 * The words of each request field (body or query) in the reference: kept
 * here, not in the request schemas, so the handlers' bundles and their
 * start-up carry no documentation.
 */
const FIELD_DESCRIPTIONS: Record<string, string> = {
  name: 'A name for people (1–100 characters after trimming)',
  type: '`sk`: secret, for servers. `pk`: public, for browsers, restricted by `domains`',
  environment: '`live` or `test`; a test key may only manage test keys',
  team_id: "The team the key belongs to: the calling key's own team",
  scopes:
    'Permission scopes: `<area>.<resource>:<action>`, `<area>.*:<action>` or `<area>.manage`. Default on create `["enc.tiles:read"]`; never more than the calling key holds',
  domains: 'Public keys: allowed origins (`https://app.example.com`, `https://*.example.com`), checked against `Origin` and `Referer`',
  ip_whitelist: 'Allowed IPv4/IPv6 addresses or CIDR blocks; empty: any address',
  rate_limit: "Requests per hour; default: the team's plan limit",
  expires_at: 'When the key stops working (ISO 8601 with a time zone, in the future); null or absent: never',
  description: 'Free-text notes (up to 1,000 characters)',
  key_id: "The key's id",
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
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route.name) };
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
      { name: 'Identities', description: "A team's customers, named by the platform's own ids, whose keys will share limits and credits" },
      { name: 'Teams', description: "A team's own settings: its policy for keys nobody uses" },
    ],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A key value holding the `keys.manage` scope' } },
    },
    paths,
  });
  describeFields(document);
  return document;
}
