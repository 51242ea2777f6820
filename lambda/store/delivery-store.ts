/**
 * Webhook deliveries and the events they carry (key table): every attempt
 * is an item under its endpoint, kept 30 days; each event's body is kept as
 * first sent, so a redelivery sends the same bytes with the same
 * `webhook-id`.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SK_DELIVERY_PREFIX, TTL_ATTRIBUTE, keyTableKeys } from '../contract/tables';
import { ENDPOINT_CONCURRENCY } from '../contract/webhooks';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import type { DeliveryItem } from '../domain/webhook-endpoints';
import type { OperationsOf } from '../contract/store-operations';
import { ABSENT, type StoreTables } from './transactions';
import { DELIVERY, WEBHOOK_EVENT } from './entities';
import type { StoredWebhookEvent } from './webhook-store';

/** A claimed delivery slot: which, and until when it is held (epoch ms), so only its holder gives it back. */
export interface DeliverySlot {
  readonly endpointId: string;
  readonly name: string;
  readonly until: number;
}

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
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.webhookEvent(messageId), ConsistentRead: true }),
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
        ExpressionAttributeValues: { ':pk': keyTableKeys.webhookEndpoint(endpointId).pk, ':prefix': SK_DELIVERY_PREFIX },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    return { items: DELIVERY.readAll(Items), last: LastEvaluatedKey as Record<string, string> | undefined };
  }

  /**
   * `claimDeliverySlot`: one of the endpoint's ENDPOINT_CONCURRENCY slots,
   * free or held past its lease, until `now + leaseMs`; undefined when every
   * slot is held. The slots are tried from `first` on, one conditional
   * write each.
   */
  async claimSlot(endpointId: string, now: number, leaseMs: number, first = 0): Promise<DeliverySlot | undefined> {
    const until = now + leaseMs;
    for (let offset = 0; offset < ENDPOINT_CONCURRENCY; offset++) {
      const name = `slot${(first + offset) % ENDPOINT_CONCURRENCY}`;
      try {
        await this.tables.db.send(
          new UpdateCommand({
            TableName: this.tables.keyTableName,
            Key: keyTableKeys.deliverySlots(endpointId),
            UpdateExpression: 'SET #slot = :until, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#slot) OR #slot <= :now',
            ExpressionAttributeNames: { '#slot': name, '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':until': until, ':now': now, ':ttl': epochSeconds(new Date(until + MS_PER_DAY)) },
          }),
        );
        return { endpointId, name, until };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return undefined;
  }

  /** `claimDeliverySlot`: gives a slot back, if this claim still holds it (a lease that ran out may be another's now). */
  async releaseSlot(slot: DeliverySlot): Promise<void> {
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: keyTableKeys.deliverySlots(slot.endpointId),
          UpdateExpression: 'REMOVE #slot',
          ConditionExpression: '#slot = :until',
          ExpressionAttributeNames: { '#slot': slot.name },
          ExpressionAttributeValues: { ':until': slot.until },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** `readDeliveries`: one attempt by its endpoint and id. */
  async getDelivery(endpointId: string, deliveryUlid: string): Promise<DeliveryItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.delivery(endpointId, deliveryUlid), ConsistentRead: true }),
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
  claimSlot: 'claimDeliverySlot',
  releaseSlot: 'claimDeliverySlot',
} as const satisfies OperationsOf<DeliveryStore>;
