/**
 * An endpoint's delivery slots (key table, `WEBHOOK#<id>` / `SLOTS`): the
 * attempts in flight to it, at most ENDPOINT_CONCURRENCY, each held until
 * its lease ends (`slot<n>`: epoch ms), so a slot a crashed attempt held
 * frees itself. Only the delivery claims them (its own store, so no other
 * function's bundle carries it).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE } from '../contract/tables';
import { ENDPOINT_CONCURRENCY } from '../contract/webhooks';
import type { OperationsOf } from '../contract/store-operations';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import type { StoreTables } from './transactions';
import { DELIVERY_SLOTS } from './entities/delivery-slots';

/** A claimed delivery slot: which, and until when it is held (epoch ms), so only its holder gives it back. */
export interface DeliverySlot {
  readonly endpointId: string;
  readonly name: string;
  readonly until: number;
}

export class DeliverySlotStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /**
   * `claimDeliverySlot`: one of the endpoint's ENDPOINT_CONCURRENCY slots,
   * free or held past its lease, until `now + leaseMs`; undefined when every
   * slot is held. The slots are tried from `first` on, one conditional
   * write each.
   */
  async claim(endpointId: string, now: number, leaseMs: number, first = 0): Promise<DeliverySlot | undefined> {
    const until = now + leaseMs;
    for (let offset = 0; offset < ENDPOINT_CONCURRENCY; offset++) {
      const name = `slot${(first + offset) % ENDPOINT_CONCURRENCY}`;
      try {
        await this.tables.db.send(
          new UpdateCommand({
            TableName: this.tables.keyTableName,
            Key: DELIVERY_SLOTS.key(endpointId),
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
  async release(slot: DeliverySlot): Promise<void> {
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: DELIVERY_SLOTS.key(slot.endpointId),
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
}

export const DELIVERY_SLOT_STORE_OPERATIONS = {
  claim: 'claimDeliverySlot',
  release: 'claimDeliverySlot',
} as const satisfies OperationsOf<DeliverySlotStore>;
