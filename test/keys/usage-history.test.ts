/**
 * A verification costs the same for life: the usage item keeps the last
 * USAGE_DAYS_KEPT days, older days move to the key's month items (at most
 * one extra write per key per day, never counted twice), and the history
 * stays readable through the usage route.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambda/composition/dynamo';
import { config } from '../../lambda/composition/config';
import { MS_PER_DAY } from '../../lambda/platform/clock';
import { USAGE_DAYS_KEPT } from '../../lambda/domain/usage-figures';
import { itemSizeBytes } from '../../bench/item-size';
import { call, createKey, newTeam } from '../support/api';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { servicesWith } from '../support/services';
import { callVerify, countDynamoRequests } from '../verify/helpers';
import { USAGE } from '../../lambda/store/entities/usage';
import { USAGE_MONTH_PREFIX } from '../../lambda/store/entities/usage-month';

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

async function usageItem(keyId: string) {
  const { Item } = await documentClient().send(new GetCommand({ TableName: config.keyTableName, Key: USAGE.key(keyId), ConsistentRead: true }));
  return Item as Record<string, unknown> & { daily: Record<string, number>; total_requests: number };
}

async function monthItems(keyId: string) {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config.keyTableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `KEY#${keyId}`, ':prefix': USAGE_MONTH_PREFIX },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []) as Record<string, unknown>[];
}

/** Gives the key `days` days of history before today (day d before today: d % 7 + 1 requests). */
async function seedHistory(keyId: string, days: number, now: number): Promise<Record<string, number>> {
  const item = await usageItem(keyId);
  const daily: Record<string, number> = {};
  for (let d = days; d >= 1; d--) daily[day(now - d * MS_PER_DAY)] = (d % 7) + 1;
  const total = Object.values(daily).reduce((a, b) => a + b, 0);
  await documentClient().send(new PutCommand({ TableName: config.keyTableName, Item: { ...item, daily, total_requests: total } }));
  return daily;
}

afterEach(() => restoreSystemClock());

describe('usage history', () => {
  it('a 400-day-old key: its usage item shrinks under 1 KB within its next uses, totals and every day stay readable', async () => {
    // Prepare: noon tomorrow (ahead of the real clock, as stored TTLs need), so the uses below stay in one day
    const clock = installManualClock(Math.floor(Date.now() / MS_PER_DAY + 1) * MS_PER_DAY + MS_PER_DAY / 2);
    const now = clock.now().getTime();
    const team = await newTeam();
    const key = await createKey(team);
    const seeded = await seedHistory(key.id, 400, now);
    const sizeBefore = itemSizeBytes(await usageItem(key.id));
    // Act: one verification a second (a rate at which each one writes): the first copies the 368 old days to their months, the next ten remove them (40 a write)
    const answers = [];
    for (let i = 0; i < 11; i++) {
      answers.push((await callVerify({ key: key.key })).body.code);
      clock.advance(1000);
    }
    const item = await usageItem(key.id);
    const report = await call('get-api-key-usage', { key: team.key, query: { key_id: key.id, days: '90' } });
    // Assess
    expect(answers).toEqual(Array(11).fill('VALID'));
    expect(sizeBefore).toBeGreaterThan(5000);
    expect(Object.keys(item.daily).length).toBeLessThanOrEqual(USAGE_DAYS_KEPT);
    expect(itemSizeBytes(item)).toBeLessThan(1024);
    const seededTotal = Object.values(seeded).reduce((a, b) => a + b, 0);
    expect(item.total_requests).toBe(seededTotal + 11);
    expect(report.status).toBe(200);
    const expectedDaily = Array.from({ length: 90 }, (_, i) => {
      const date = day(now - (89 - i) * MS_PER_DAY);
      return { date, requests: (seeded[date] ?? 0) + (date === day(now) ? 11 : 0) };
    });
    expect(report.body.data.daily).toEqual(expectedDaily);
    const expectedMonthly = new Map<string, number>();
    for (const [date, count] of Object.entries(seeded)) expectedMonthly.set(date.slice(0, 7), (expectedMonthly.get(date.slice(0, 7)) ?? 0) + count);
    expectedMonthly.set(day(now).slice(0, 7), (expectedMonthly.get(day(now).slice(0, 7)) ?? 0) + 11);
    expect(report.body.data.monthly).toEqual([...expectedMonthly.entries()].sort().map(([month, requests]) => ({ month, requests })));
    expect(report.body.data.monthly.reduce((sum: number, month: { requests: number }) => sum + month.requests, 0)).toBe(item.total_requests);
  });

  it('two processes that both see an old day copy it once', async () => {
    // Prepare: a key with 40 days of history, and two processes (separate services, each with its own memory)
    const now = Date.now();
    const team = await newTeam();
    const key = await createKey(team);
    const seeded = await seedHistory(key.id, 40, now);
    const processes = [servicesWith({}), servicesWith({})];
    const use = { keyId: key.id, at: new Date(now), rateLimit: 1000 };
    // Act: both record a use before either removes the copied days
    await Promise.all(processes.map((services) => services.usage.recordUse(use)));
    await Promise.all(processes.map((services) => services.usage.recordUse(use)));
    // Assess
    const staleDays = Object.keys(seeded).filter((date) => date < day(now - (USAGE_DAYS_KEPT - 1) * MS_PER_DAY));
    expect(staleDays.length).toBe(40 - (USAGE_DAYS_KEPT - 1));
    const months = await monthItems(key.id);
    const copied = months.reduce((sum, month) => sum + Number(month.total), 0);
    expect(copied).toBe(staleDays.reduce((sum, date) => sum + seeded[date], 0));
    expect(Object.keys((await usageItem(key.id)).daily).filter((date) => staleDays.includes(date))).toEqual([]);
  });

  it('a key used every day: at most one extra write a day, to its month item', async () => {
    // Prepare: a key already 40 days old, verified twice, then three times a day (a second apart) for 5 days
    const clock = installManualClock();
    const team = await newTeam();
    const key = await createKey(team);
    await seedHistory(key.id, 40, clock.now().getTime());
    await callVerify({ key: key.key });
    await callVerify({ key: key.key });
    const counter = countDynamoRequests();
    const perDay: number[] = [];
    try {
      for (let d = 1; d <= 5; d++) {
        clock.set(clock.now().getTime() + MS_PER_DAY);
        counter.reset();
        // Act
        for (let i = 0; i < 3; i++) {
          await callVerify({ key: key.key });
          clock.advance(1000);
        }
        perDay.push(counter.requests.filter((request) => request.command === 'UpdateItemCommand').length);
      }
    } finally {
      counter.restore();
    }
    // Assess: 3 recording writes a day, plus one copy of the day that turned old
    expect(perDay).toEqual([4, 4, 4, 4, 4]);
    expect(Object.keys((await usageItem(key.id)).daily).length).toBeLessThanOrEqual(USAGE_DAYS_KEPT);
  });
});
