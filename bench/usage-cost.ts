/**
 * `npm run bench`, sections 3 and 4: the usage item a verification writes
 * for a key with 400 days of history (sized by DynamoDB's rules, and the
 * write units DynamoDB reports), and a hot key's verifications with usage
 * leases off and on (verifications per second, usage writes per verification).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Services } from '../lambda/composition/services';
import { makeHandler as makeVerifyHandler } from '../lambda/routes/verify-api-key/handler';
import { itemSizeBytes } from './item-size';
import { USAGE } from '../lambda/store/entities/usage';
import { BUDGET, QUICK, median, round } from './figures';
import { TABLES, benchServices, verifyEvent } from './bench-services';

/** Seeds `days` days of history on the key's usage item, as if it had been verified once a day since. */
async function seedHistory(doc: DynamoDBDocumentClient, keyId: string, days: number): Promise<void> {
  const { Item } = await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }));
  const daily: Record<string, number> = {};
  const now = Date.now();
  for (let d = days; d >= 1; d--) daily[new Date(now - d * 86_400_000).toISOString().slice(0, 10)] = 1 + (d % 97);
  await doc.send(new PutCommand({ TableName: TABLES.keyTable, Item: { ...Item, daily, total_requests: Object.values(daily).reduce((a, b) => a + b, 0) } }));
}

export async function costPerVerification(services: Services, doc: DynamoDBDocumentClient, value: string, keyId: string): Promise<Record<string, unknown>> {
  await seedHistory(doc, keyId, 400);
  const handler = makeVerifyHandler(() => services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  // The first uses after seeding drain the backlog (old days copied to their months, then removed, 40 a write).
  const itemNow = async () => (await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }))).Item ?? {};
  const sizeBefore = itemSizeBytes(await itemNow());
  let drainedAfter = 0;
  for (; drainedAfter < 30 && Object.keys((await itemNow()).daily ?? {}).length > 32; drainedAfter++) await handler(verifyEvent(value), context);
  const sizes: number[] = [];
  for (let i = 0; i < 3; i++) {
    await handler(verifyEvent(value), context);
    sizes.push(itemSizeBytes(await itemNow()));
  }
  // What DynamoDB charges for one more write of that item (a standard write: 1 unit per started KB of the larger of the old and new item).
  const { ConsumedCapacity } = await doc.send(
    new UpdateCommand({
      TableName: TABLES.keyTable,
      Key: USAGE.key(keyId),
      UpdateExpression: 'SET total_requests = total_requests + :zero',
      ExpressionAttributeValues: { ':zero': 0 },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  const size = Math.max(...sizes);
  return {
    history_days_seeded: 400,
    usage_item_bytes_seeded: sizeBefore,
    verifications_to_drain_the_backlog: drainedAfter,
    usage_item_bytes: size,
    write_units_by_sizing_rules: Math.ceil(size / 1024),
    // DynamoDB Local reports the units of this write; in AWS, ReturnConsumedCapacity gives the same.
    write_units_reported: ConsumedCapacity?.CapacityUnits ?? null,
    item_bytes_budget: BUDGET.usageItemBytes,
    within_budget: size < BUDGET.usageItemBytes,
  };
}

/**
 * Hot key: one key verified by 32 concurrent callers in one process, with
 * leases off (every verification writes the usage item) and on, in
 * alternating rounds: verifications per second and usage writes per
 * verification; the item's total is checked exact after a flush.
 */
export async function hotKey(endpoint: string, value: string, keyId: string): Promise<Record<string, unknown>> {
  const n = QUICK ? 2_000 : 10_000;
  const rounds = QUICK ? 1 : 2;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const runs: Record<'off' | 'on', { perSecond: number[]; writesPerVerification: number[] }> = {
    off: { perSecond: [], writesPerVerification: [] },
    on: { perSecond: [], writesPerVerification: [] },
  };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const bench = benchServices(endpoint, mode === 'on');
      const handler = makeVerifyHandler(() => bench.services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
      const totalOf = async () =>
        Number((await bench.doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }))).Item?.total_requests);
      const before = await totalOf();
      let next = 0;
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < n) {
            next += 1;
            const answer = await handler(verifyEvent(value), context);
            if (answer.statusCode !== 200) throw new Error(`hot key: verify answered ${answer.statusCode} ${answer.body}`);
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const writes = bench.usageWrites();
      await bench.services.usage.flushPending();
      const counted = (await totalOf()) - before;
      if (counted !== n) throw new Error(`hot key (${mode}): ${n} verifications, ${counted} counted`);
      runs[mode].perSecond.push(n / seconds);
      runs[mode].writesPerVerification.push(writes / n);
    }
  }
  const summary = (mode: 'off' | 'on') => ({
    verifications_per_second: round(median(runs[mode].perSecond), 0),
    usage_writes_per_verification: round(median(runs[mode].writesPerVerification), 4),
  });
  const on = summary('on');
  return {
    in_flight: 32,
    verifications: n,
    rounds,
    leases_off: summary('off'),
    leases_on: on,
    writes_per_verification_budget: BUDGET.hotKeyWritesPerVerification,
    within_budget: on.usage_writes_per_verification <= BUDGET.hotKeyWritesPerVerification,
  };
}
