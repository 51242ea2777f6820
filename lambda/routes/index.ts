/**
 * The one list of routes. The CDK app (its functions, construct ids,
 * grants and API methods), the local server, the OpenAPI document and the
 * tests all derive from ROUTES; adding a route is its folder
 * (`<route>/route.ts`, `schema.ts`, `handler.ts`, `openapi.ts`) and one line
 * here. Dependency-free (each `route.ts` imports only the contract), so the
 * CDK app reads it at synth. Nothing under lambda/ but the entry points
 * imports it: a handler hands its own declaration to the shared middleware.
 */
import path from 'node:path';
import type { RouteDefinition } from '../contract/routes';
import { HANDLER_PORTS, type PortName } from '../contract/ports';
import { HANDLER_OPERATIONS, type StoreOperation } from '../contract/store-operations';
import { requestsOf, type TableRequest } from '../contract/operation-access';
import { route as deleteApiKey } from './delete-api-key/route';
import { route as generateApiKey } from './generate-api-key/route';
import { route as getApiKey } from './get-api-key/route';
import { route as getApiKeyUsage } from './get-api-key-usage/route';
import { route as listApiKeys } from './list-api-keys/route';
import { route as listAuditEvents } from './list-audit-events/route';
import { route as regenerateApiKey } from './regenerate-api-key/route';
import { route as updateApiKey } from './update-api-key/route';
import { route as verifyApiKey } from './verify-api-key/route';
import { route as createWebhookEndpoint } from './create-webhook-endpoint/route';
import { route as listWebhookEndpoints } from './list-webhook-endpoints/route';
import { route as updateWebhookEndpoint } from './update-webhook-endpoint/route';
import { route as deleteWebhookEndpoint } from './delete-webhook-endpoint/route';
import { route as rotateWebhookSecret } from './rotate-webhook-secret/route';
import { route as sendTestWebhook } from './send-test-webhook/route';
import { route as listWebhookDeliveries } from './list-webhook-deliveries/route';
import { route as redeliverWebhook } from './redeliver-webhook/route';
import { route as reportLeakedKey } from './report-leaked-key/route';
import { route as githubSecretScanning } from './github-secret-scanning/route';
import { route as createIdentity } from './create-identity/route';
import { route as getIdentity } from './get-identity/route';
import { route as listIdentities } from './list-identities/route';
import { route as updateIdentity } from './update-identity/route';
import { route as deleteIdentity } from './delete-identity/route';
import { route as adjustCredits } from './adjust-credits/route';
import { route as getVerificationAnalytics } from './get-verification-analytics/route';
import { route as getTeamSettings } from './get-team-settings/route';
import { route as updateTeamSettings } from './update-team-settings/route';
import { route as getAuditCheckpoint } from './get-audit-checkpoint/route';
import { route as auditPublicKey } from './audit-public-key/route';

/** Every route, in the order the API reference lists them. */
export const ROUTES = [
  generateApiKey,
  regenerateApiKey,
  deleteApiKey,
  listApiKeys,
  getApiKey,
  updateApiKey,
  getApiKeyUsage,
  listAuditEvents,
  getAuditCheckpoint,
  auditPublicKey,
  verifyApiKey,
  reportLeakedKey,
  githubSecretScanning,
  createWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  sendTestWebhook,
  listWebhookDeliveries,
  redeliverWebhook,
  createIdentity,
  getIdentity,
  listIdentities,
  updateIdentity,
  deleteIdentity,
  adjustCredits,
  getVerificationAnalytics,
  getTeamSettings,
  updateTeamSettings,
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];
export type RouteName = Route['name'];
/** The routes a manager key calls. */
export type ManagerRouteName = Extract<Route, { caller: 'manager' }>['name'];

/** The functions that are not routes: each is `lambda/handlers/<name>.ts`. */
export const HANDLER_FUNCTIONS = [
  'authorizer',
  'management-authorizer',
  'expire-old-value',
  'archive-audit',
  'publish-events',
  'deliver-webhooks',
  'notify-key-expiry',
  'flush-authorizer-cache',
  'roll-up-analytics',
  'disable-unused-keys',
  'checkpoint-audit',
] as const;
export type FunctionName = RouteName | (typeof HANDLER_FUNCTIONS)[number];
/** Every Lambda function of the service, routes first. */
export const FUNCTION_NAMES: readonly FunctionName[] = [...ROUTES.map((route) => route.name), ...HANDLER_FUNCTIONS];

/** The folder of the route folders. */
export const ROUTES_DIR = __dirname;
/** The folder of the other functions' entry files. */
export const HANDLERS_DIR = path.resolve(__dirname, '..', 'handlers');

/** A route by name, or undefined for a function that is not a route. */
export function routeNamed(name: string): Route | undefined {
  return ROUTES.find((route) => route.name === name);
}

/** Entry file of a function: `lambda/routes/<route>/handler.ts` for a route, `lambda/handlers/<name>.ts` otherwise. */
export function functionEntry(name: string): string {
  return routeNamed(name) ? path.join(ROUTES_DIR, name, 'handler.ts') : path.join(HANDLERS_DIR, `${name}.ts`);
}

/** The functions that run storage operations, and which. */
export type FunctionWithStore = RouteName | keyof typeof HANDLER_OPERATIONS;
export const FUNCTION_OPERATIONS = {
  ...(Object.fromEntries(ROUTES.map((route) => [route.name, route.operations])) as Record<RouteName, readonly StoreOperation[]>),
  ...HANDLER_OPERATIONS,
} satisfies Record<FunctionWithStore, readonly StoreOperation[]>;

/** The ports each function is wired with (composition builds exactly these; its bundle carries no other). */
export const FUNCTION_PORTS = {
  ...(Object.fromEntries(ROUTES.map((route) => [route.name, route.ports])) as unknown as Record<RouteName, readonly PortName[]>),
  ...HANDLER_PORTS,
} satisfies Record<FunctionName, readonly PortName[]>;

/** Every request any function sends to a table: what its throttle alarm watches. */
export function requestsOfAllFunctions(table: 'key' | 'audit'): TableRequest[] {
  return requestsOf(Object.values(FUNCTION_OPERATIONS).flat(), table);
}
