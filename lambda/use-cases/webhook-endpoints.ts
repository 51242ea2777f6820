/**
 * A team's webhook endpoints: create (the signing secret shown once), list,
 * change, delete and rotate the secret. Team-scoped as keys are: another
 * team's endpoint is 404. Every change is one conditional write with its
 * audit record.
 */
import { ApiError, ErrorCode, invalidRequest } from '../contract/errors';
import { SECRET_OVERLAP_MS, type WebhookEventType } from '../contract/webhooks';
import { actorOf, type RequestMeta } from '../domain/actor';
import { AuditEventType } from '../domain/audit-events';
import { assertPrecondition, type Precondition } from '../domain/revision';
import { assertOwnTeam } from '../policy/authorization';
import { endpointResource, type WebhookEndpointItem, type WebhookEndpointResource } from '../domain/webhook-endpoints';
import type { ClockPort, SettingsPort, WebhookAdaptersPort, WebhooksPort } from '../store/ports';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import { newKeyId } from '../platform/ids';
import { checkEndpointHost, checkEndpointUrl } from '../platform/webhook-address';
import { newSigningSecret } from '../platform/webhook-secrets';
import { endpointAudit, notFound, ownEndpoint, tagged, type TaggedEndpoint } from './endpoint-access';

export { endpointAudit, ownEndpoint, type TaggedEndpoint };
import type { VerifiedKey } from '../verification/verify';
import type { EndpointChanges } from '../store/webhook-store';
import { idempotencyRecord } from '../store/idempotency-record';
import type { IdempotentAnswer } from './create-key';
import { WEBHOOK_ENDPOINT, endpointTeamIndex, teamEndpointsPage } from '../store/entities/webhook-endpoint';

/** What the endpoint routes take: the endpoints, the clock, the cursor signing key, the address policy and the secret box. */
export type WebhookEndpointPorts = WebhooksPort & ClockPort & SettingsPort<'cursorSigningKey'> & WebhookAdaptersPort;
type Services = WebhookEndpointPorts;

/** What a 412 calls the thing that changed. */
const ENDPOINT = 'webhook endpoint';

export type NewEndpoint = WebhookEndpointResource & { secret: string };
/** What a replay under the same Idempotency-Key answers: the endpoint, its secret not shown again. */
export type ReplayedEndpoint = WebhookEndpointResource & { secret: null };

/** The URL as stored, or the 400 that says why it cannot be. */
async function checkedUrl(services: Services, url: string): Promise<string> {
  const ports = services.webhookPorts();
  const checked = checkEndpointUrl(url, ports.policy);
  if (!checked.ok) throw invalidRequest([{ field: 'url', issue: checked.issue }]);
  const refused = await checkEndpointHost(checked.url, ports.policy, ports.resolve);
  if (refused) throw invalidRequest([{ field: 'url', issue: refused }]);
  return checked.url.href;
}

export interface CreateEndpointInput {
  team_id: string;
  url: string;
  description?: string;
  events?: WebhookEventType[];
}

/**
 * Adds an endpoint and returns it with its signing secret. Under an
 * `Idempotency-Key` (`idempotent`), the answer is stored with the change,
 * the secret replaced by null: a replay never shows the secret again.
 */
export async function createEndpoint(
  services: Services,
  caller: VerifiedKey,
  input: CreateEndpointInput,
  meta: RequestMeta,
  idempotent?: IdempotentAnswer<ReplayedEndpoint>,
): Promise<NewEndpoint> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot add webhook endpoints to another team.');
  const url = await checkedUrl(services, input.url);
  const now = services.clock.now();
  const id = newKeyId();
  const secret = newSigningSecret();
  const item: WebhookEndpointItem = {
    ...WEBHOOK_ENDPOINT.key(id),
    ...endpointTeamIndex(input.team_id, id),
    entity: 'webhook',
    id,
    team_id: input.team_id,
    url,
    description: input.description ?? '',
    events: [...new Set(input.events ?? [])],
    is_active: true,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    created_by: caller.created_by,
    revision: 1,
    failing_since: null,
    disabled_reason: null,
    secret: await services.webhookPorts().secrets.seal(secret, id),
  };
  const answer = idempotent && idempotencyRecord(idempotent.claim, idempotent.status, idempotent.bodyOf({ ...endpointResource(item), secret: null }), now);
  const audit = endpointAudit(AuditEventType.WEBHOOK_ENDPOINT_CREATED, item, actorOf(caller, meta), now);
  const created = await services.webhooks.createEndpoint(item, audit, answer);
  if (!created) {
    throw invalidRequest([{ field: 'team_id', issue: 'the team has 10 webhook endpoints, the most it may have: delete one first' }]);
  }
  return { ...endpointResource(item), secret };
}

/** What listing a team's endpoints needs: their store and the cursor signing key. */
export type ListEndpointsPorts = WebhooksPort & SettingsPort<'cursorSigningKey'>;

export async function listEndpoints(
  services: ListEndpointsPorts,
  caller: VerifiedKey,
  input: { team_id: string; limit: number; cursor?: string },
): Promise<{ data: WebhookEndpointResource[]; next_cursor: string | null }> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot list another team’s webhook endpoints.');
  const start = input.cursor === undefined ? undefined : decodeCursor(input.cursor, teamEndpointsPage(input.team_id), services.settings.cursorSigningKey);
  const page = await services.webhooks.listEndpoints(input.team_id, input.limit, start);
  return { data: page.items.map(endpointResource), next_cursor: page.last ? encodeCursor(page.last, services.settings.cursorSigningKey) : null };
}

export interface UpdateEndpointInput extends EndpointChanges {
  endpoint_id: string;
}

export async function updateEndpoint(
  services: Services,
  caller: VerifiedKey,
  input: UpdateEndpointInput,
  meta: RequestMeta,
  precondition?: Precondition,
): Promise<TaggedEndpoint> {
  const endpoint = await ownEndpoint(services, caller, input.endpoint_id);
  assertPrecondition(precondition, endpoint, ENDPOINT);
  const changes: EndpointChanges & { disabled_reason?: null; failing_since?: null } = {};
  if (input.url !== undefined && input.url !== endpoint.url) changes.url = await checkedUrl(services, input.url);
  if (input.description !== undefined && input.description !== endpoint.description) changes.description = input.description;
  if (input.events !== undefined) {
    const events = [...new Set(input.events)];
    if (JSON.stringify(events) !== JSON.stringify(endpoint.events)) changes.events = events;
  }
  if (input.is_active !== undefined && input.is_active !== endpoint.is_active) changes.is_active = input.is_active;
  const changed = Object.keys(changes).sort();
  if (changed.length === 0) return tagged(endpoint);
  // Enabled again by hand: a fresh start, the service's reason and the failing run forgotten.
  if (changes.is_active === true) Object.assign(changes, { disabled_reason: null, failing_since: null });
  const now = services.clock.now();
  const after: WebhookEndpointItem = { ...endpoint, ...changes, updated_at: now.toISOString(), revision: endpoint.revision + 1 };
  const audit = endpointAudit(AuditEventType.WEBHOOK_ENDPOINT_UPDATED, after, actorOf(caller, meta), now, { changed_fields: changed });
  if (!(await services.webhooks.changeEndpoint(endpoint, changes, now, audit))) throw await changedMeanwhile(services, caller, input.endpoint_id, precondition);
  return tagged(after);
}

/** The answer to a change that lost a race: 404 when the endpoint went, 412 when If-Match no longer holds, else 409. */
async function changedMeanwhile(services: Services, caller: VerifiedKey, endpointId: string, precondition?: Precondition): Promise<ApiError> {
  const current = await ownEndpoint(services, caller, endpointId);
  assertPrecondition(precondition, current, ENDPOINT);
  return new ApiError(ErrorCode.CONFLICT, 'The webhook endpoint changed while this request was being processed; read it again and retry.');
}

export async function deleteEndpoint(
  services: Services,
  caller: VerifiedKey,
  input: { endpoint_id: string },
  meta: RequestMeta,
): Promise<{ deleted: true; id: string }> {
  const endpoint = await ownEndpoint(services, caller, input.endpoint_id);
  const now = services.clock.now();
  const deleted = await services.webhooks.deleteEndpoint(
    endpoint,
    endpointAudit(AuditEventType.WEBHOOK_ENDPOINT_DELETED, endpoint, actorOf(caller, meta), now),
  );
  if (!deleted) throw notFound(input.endpoint_id);
  return { deleted: true, id: endpoint.id };
}

/** A new secret, shown once; the old one keeps signing beside it for 24 hours. */
export async function rotateSecret(
  services: Services,
  caller: VerifiedKey,
  input: { endpoint_id: string },
  meta: RequestMeta,
): Promise<NewEndpoint & { previous_secret_expires_at: string }> {
  const endpoint = await ownEndpoint(services, caller, input.endpoint_id);
  const now = services.clock.now();
  const secret = newSigningSecret();
  const until = new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString();
  const changes = { secret: await services.webhookPorts().secrets.seal(secret, endpoint.id), previous_secret: endpoint.secret, previous_secret_until: until };
  const audit = endpointAudit(AuditEventType.WEBHOOK_SECRET_ROTATED, endpoint, actorOf(caller, meta), now);
  if (!(await services.webhooks.changeEndpoint(endpoint, changes, now, audit))) throw await changedMeanwhile(services, caller, input.endpoint_id);
  return { ...endpointResource({ ...endpoint, updated_at: now.toISOString() }), secret, previous_secret_expires_at: until };
}
