/**
 * The management routes' prefetch serves the target key's usage item it
 * read in the request's first round trip, unless this process changed that
 * item since the read began (a use recorded, or pending uses flushed by a
 * lease's timer between the read and its use): then the item is read again.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { PrefetchedItems, withPrefetched } from '../../lambda/store/prefetch';
import { createKey, newTeam } from '../support/api';
import { servicesWith } from '../support/services';
import { usageItem } from '../support/store';
import { USAGE } from '../../lambda/store/entities/usage';

/** A target key, its process's services (leases off), and the prefetch's mark and read as the middleware takes them. */
async function prefetchOfNewKey() {
  const team = await newTeam();
  const target = await createKey(team);
  const services = servicesWith({ usageLeases: { enabled: false } });
  const mark = services.usage.readMark(target.id);
  const prefetchedItem = await usageItem(target.id);
  /** The usage item the route's step gets. */
  const serve = () => {
    const prefetched = new PrefetchedItems([USAGE.key(target.id)], [prefetchedItem!], mark);
    return withPrefetched(services, prefetched, team.keyId).usage.usageItem(target.id);
  };
  return { target, services, prefetchedItem, serve };
}

describe('prefetched usage items', () => {
  it('a use written after the prefetch read began: the item is read again, with it', async () => {
    // Prepare
    const { target, services, prefetchedItem, serve } = await prefetchOfNewKey();

    // Act: this process records a use before the route's step reads the item
    await services.usage.recordUse({ keyId: target.id, at: new Date(), rateLimit: 100 });
    const served = await serve();

    // Assess
    expect(served?.total_requests).toBe(Number(prefetchedItem?.total_requests) + 1);
  });

  it('no change since the mark: the prefetched item is served, without a second read', async () => {
    // Prepare: another writer (not this process) changes the stored item after the prefetch read
    const { target, prefetchedItem, serve } = await prefetchOfNewKey();
    await documentClient().send(
      new UpdateCommand({
        TableName: config.keyTableName,
        Key: USAGE.key(target.id),
        UpdateExpression: 'SET total_requests = :n',
        ExpressionAttributeValues: { ':n': 99 },
      }),
    );

    // Act
    const served = await serve();

    // Assess: the prefetched figures, not the table's (no second read)
    expect({ total: served?.total_requests, prefetched: prefetchedItem?.total_requests }).toEqual({ total: 0, prefetched: 0 });
  });

  it('uses pending when the read began: no mark, so the item is read again', async () => {
    const team = await newTeam();
    const target = await createKey(team);
    const services = servicesWith({});
    // A hot key: its lease admits from memory and leaves uses pending.
    for (let i = 0; i < 40; i++) await services.usage.recordUse({ keyId: target.id, at: new Date(), rateLimit: 1_000_000 });
    const mark = services.usage.readMark(target.id);
    const prefetchedItem = await usageItem(target.id);
    const pendingAtRead = mark === undefined;

    const prefetched = new PrefetchedItems([USAGE.key(target.id)], [prefetchedItem!], mark);
    const served = await withPrefetched(services, prefetched, team.keyId).usage.usageItem(target.id);

    expect({ pendingAtRead, total: served?.total_requests }).toEqual({ pendingAtRead: true, total: 40 });
    await services.usage.flushPending();
  });
});
