/**
 * Webhook endpoints (key table): each change a conditional write or a
 * transaction with its audit record; the team's endpoint count is a counter
 * item changed in the same transaction as the endpoint, so the cap of 10
 * holds under concurrent creates.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ENDPOINTS_PER_TEAM } from '../contract/webhooks';
import type { AuditRecord } from '../domain/audit-events';
import type { WebhookEndpointItem } from '../domain/webhook-endpoints';
import type { OperationsOf } from '../contract/store-operations';
import { ABSENT, Transactions, type StoreTables, type TransactItem } from './transactions';
import { revisionUpdate, teamIndexPage } from './revision-writes';
import { IdempotencyRace, type IdempotencyRecord } from './idempotency-record';
import { ENDPOINT_COUNT, ENDPOINT_COUNT_ENTITY } from './entities/endpoint-count';
import { WEBHOOK_ENDPOINT, teamEndpointsPartition } from './entities/webhook-endpoint';

/** The fields an update may change. */
export type EndpointChanges = Partial<Pick<WebhookEndpointItem, 'url' | 'description' | 'events' | 'is_active'>>;

export class WebhookStore {
  private readonly transactions: Transactions;

  constructor(private readonly tables: StoreTables) {
    this.transactions = new Transactions(tables);
  }

  /**
   * `createWebhookEndpoint`: the endpoint, the team's count (refused at the
   * cap), the audit record and the idempotent answer if any; false at the
   * cap, IdempotencyRace when a twin committed first.
   */
  async createEndpoint(item: WebhookEndpointItem, audit: AuditRecord, idempotency?: IdempotencyRecord): Promise<boolean> {
    const items: TransactItem[] = [
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: ENDPOINT_COUNT.key(item.team_id),
          UpdateExpression: 'SET entity = :entity, team_id = :team ADD endpoints :one',
          ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
          ExpressionAttributeValues: { ':entity': ENDPOINT_COUNT_ENTITY, ':team': item.team_id, ':one': 1, ':max': MAX_ENDPOINTS_PER_TEAM },
        },
      },
      { Put: { TableName: this.tables.keyTableName, Item: item, ConditionExpression: ABSENT } },
      this.transactions.putAudit(audit),
    ];
    if (idempotency) items.push(this.transactions.putIdempotency(idempotency));
    const outcome = await this.transactions.transact(items);
    if (outcome.committed) return true;
    // A twin under the same Idempotency-Key committed first: it is replayed, whatever else failed.
    if (idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') throw new IdempotencyRace();
    if (outcome.reasons[0] === 'ConditionalCheckFailed') return false;
    throw new Error(`creating a webhook endpoint was cancelled: ${outcome.reasons.join(', ')}`);
  }

  /** `readWebhookEndpoint`: an endpoint by id, strongly consistent. */
  async getEndpoint(endpointId: string): Promise<WebhookEndpointItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: WEBHOOK_ENDPOINT.key(endpointId), ConsistentRead: true }),
    );
    return WEBHOOK_ENDPOINT.read(Item);
  }

  /** `listWebhookEndpoints`: a page of a team's endpoints, oldest first (the team index is eventually consistent). */
  async listEndpoints(teamId: string, limit: number, start?: Record<string, string>): Promise<{ items: WebhookEndpointItem[]; last?: Record<string, string> }> {
    const page = await teamIndexPage(this.tables, teamEndpointsPartition(teamId), limit, start);
    return { items: WEBHOOK_ENDPOINT.readAll(page.items), last: page.last };
  }

  /** `listWebhookEndpoints`: every endpoint of a team (at most 10: one page). */
  async allEndpoints(teamId: string): Promise<WebhookEndpointItem[]> {
    const all: WebhookEndpointItem[] = [];
    let start: Record<string, string> | undefined;
    do {
      const page = await this.listEndpoints(teamId, 25, start);
      all.push(...page.items);
      start = page.last;
    } while (start);
    return all;
  }

  /**
   * `changeWebhookEndpoint`: sets `changes` (and the sealed secrets of a
   * rotation) if the endpoint is still at `revision`, with the audit record;
   * false when it changed or went meanwhile.
   */
  async changeEndpoint(
    before: WebhookEndpointItem,
    changes: EndpointChanges & Partial<Pick<WebhookEndpointItem, 'secret' | 'previous_secret' | 'previous_secret_until' | 'disabled_reason' | 'failing_since'>>,
    at: Date,
    audit: AuditRecord,
  ): Promise<boolean> {
    const outcome = await this.transactions.transact([
      revisionUpdate(this.tables.keyTableName, WEBHOOK_ENDPOINT.key(before.id), before.revision, changes, at),
      this.transactions.putAudit(audit),
    ]);
    return outcome.committed;
  }

  /** `deleteWebhookEndpoint`: the endpoint (if still there), the team's count, the audit record; false when it was gone. */
  async deleteEndpoint(endpoint: WebhookEndpointItem, audit: AuditRecord): Promise<boolean> {
    const outcome = await this.transactions.transact([
      {
        Delete: {
          TableName: this.tables.keyTableName,
          Key: WEBHOOK_ENDPOINT.key(endpoint.id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: ENDPOINT_COUNT.key(endpoint.team_id),
          UpdateExpression: 'ADD endpoints :less',
          ConditionExpression: 'endpoints > :zero',
          ExpressionAttributeValues: { ':less': -1, ':zero': 0 },
        },
      },
      this.transactions.putAudit(audit),
    ]);
    return outcome.committed;
  }

  /** `auditWebhookAction`: an audit record of an action that changes no endpoint (a test, a redelivery). */
  async recordAction(audit: AuditRecord): Promise<void> {
    const outcome = await this.transactions.transact([this.transactions.putAudit(audit)]);
    if (!outcome.committed) throw new Error('the audit record of a webhook action was not written');
  }

  /** `recordWebhookOutcome`: notes the first failure of a run (kept while failures go on) or clears it after a success. */
  async noteOutcome(endpointId: string, succeeded: boolean, at: Date): Promise<void> {
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: WEBHOOK_ENDPOINT.key(endpointId),
          UpdateExpression: 'SET failing_since = :since',
          ConditionExpression: succeeded ? 'attribute_exists(pk) AND failing_since <> :since' : 'attribute_exists(pk) AND failing_since = :none',
          ExpressionAttributeValues: succeeded ? { ':since': null } : { ':since': at.toISOString(), ':none': null },
        }),
      );
    } catch (error) {
      // Already in that state (or deleted): nothing to note.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** Each public method of WebhookStore and the declared storage operation it is part of. */
export const WEBHOOK_STORE_OPERATIONS = {
  createEndpoint: 'createWebhookEndpoint',
  getEndpoint: 'readWebhookEndpoint',
  listEndpoints: 'listWebhookEndpoints',
  allEndpoints: 'listWebhookEndpoints',
  changeEndpoint: 'changeWebhookEndpoint',
  deleteEndpoint: 'deleteWebhookEndpoint',
  noteOutcome: 'recordWebhookOutcome',
  recordAction: 'auditWebhookAction',
} as const satisfies OperationsOf<WebhookStore>;
