/**
 * Webhook deliveries and the events they carry (key table): every attempt
 * is an item under its endpoint, kept 30 days; each event's body is kept as
 * first sent, so a redelivery sends the same bytes with the same
 * `webhook-id`.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryItem } from '../domain/webhook-endpoints';
import type { OperationsOf } from '../contract/store-operations';
import { ABSENT, type StoreTables } from './transactions';
import type { StoredWebhookEvent } from '../domain/webhook-endpoints';
import { DELIVERY, DELIVERY_PREFIX } from './entities/delivery';
import { WEBHOOK_ENDPOINT } from './entities/webhook-endpoint';
import { WEBHOOK_EVENT } from './entities/webhook-event';

export class DeliveryStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** `keepWebhookEvent`: an event's body, written once (a second copy of the same event changes nothing). */
  async keepEvent(event: StoredWebhookEvent): Promise<void> {
    try {
      await this.tables.db.send(new PutCommand({ TableName: this.tables.keyTableName, Item: event, ConditionExpression: ABSENT }));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** `readWebhookEvent`: a kept event by its `webhook-id`. */
  async getEvent(messageId: string): Promise<StoredWebhookEvent | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: WEBHOOK_EVENT.key(messageId), ConsistentRead: true }),
    );
    return WEBHOOK_EVENT.read(Item);
  }

  /** `recordDelivery`: one attempt. */
  async putDelivery(item: DeliveryItem): Promise<void> {
    await this.tables.db.send(new PutCommand({ TableName: this.tables.keyTableName, Item: item }));
  }

  /** `readDeliveries`: a page of an endpoint's attempts, newest first. */
  async listDeliveries(endpointId: string, limit: number, start?: Record<string, string>): Promise<{ items: DeliveryItem[]; last?: Record<string, string> }> {
    const { Items, LastEvaluatedKey } = await this.tables.db.send(
      new QueryCommand({
        TableName: this.tables.keyTableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': WEBHOOK_ENDPOINT.key(endpointId).pk, ':prefix': DELIVERY_PREFIX },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    return { items: DELIVERY.readAll(Items), last: LastEvaluatedKey as Record<string, string> | undefined };
  }

  /** `readDeliveries`: one attempt by its endpoint and id. */
  async getDelivery(endpointId: string, deliveryUlid: string): Promise<DeliveryItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: DELIVERY.key(endpointId, deliveryUlid), ConsistentRead: true }),
    );
    return DELIVERY.read(Item);
  }
}

export const DELIVERY_STORE_OPERATIONS = {
  keepEvent: 'keepWebhookEvent',
  getEvent: 'readWebhookEvent',
  putDelivery: 'recordDelivery',
  listDeliveries: 'readDeliveries',
  getDelivery: 'readDeliveries',
} as const satisfies OperationsOf<DeliveryStore>;
