/**
 * How long before a SIGKILL of DynamoDB Local can an acknowledged write be
 * lost? Writers put numbered items (PutItem and TransactWriteItems, several
 * at once) into a persistent engine; the engine is killed with SIGKILL; after
 * a restart on the same files, every acknowledged item is looked for. Prints
 * one JSON line: cycles, acknowledged writes, lost writes and how long before
 * the kill each lost one was acknowledged.
 *
 * `npx tsx scripts/engine-window.ts [cycles]` (default 10).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { localDynamoClient, startDynamoLocal } from '../local/dynamodb-local';

const CYCLES = Number(process.argv[2] ?? 10);
const WRITERS = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'engine-window-'));
  const report = { cycles: 0, acknowledged: 0, lost: 0, lost_ms_before_kill: [] as number[], acknowledged_after_kill: 0 };
  try {
    let engine = await startDynamoLocal({ dbPath: dir });
    const first = localDynamoClient(engine.endpoint);
    await first.send(
      new CreateTableCommand({
        TableName: 'window',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    first.destroy();
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const db = DynamoDBDocumentClient.from(localDynamoClient(engine.endpoint));
      const acknowledged: { pk: string; at: number }[] = [];
      let running = true;
      const writer = async (n: number) => {
        for (let i = 0; running; i++) {
          const pk = `c${cycle}-w${n}-${i}`;
          try {
            if (i % 2 === 0) await db.send(new PutCommand({ TableName: 'window', Item: { pk, v: i } }));
            else
              await db.send(
                new TransactWriteCommand({
                  TransactItems: [{ Put: { TableName: 'window', Item: { pk, v: i } } }, { Put: { TableName: 'window', Item: { pk: `${pk}-b`, v: i } } }],
                }),
              );
            acknowledged.push({ pk, at: Date.now() });
          } catch {
            return;
          }
        }
      };
      const done = Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
      await sleep(1500 + Math.random() * 500);
      const killedAt = Date.now();
      process.kill(engine.pid, 'SIGKILL');
      running = false;
      await done;
      db.destroy();
      await engine.stop();
      engine = await startDynamoLocal({ dbPath: dir });
      const after = DynamoDBDocumentClient.from(localDynamoClient(engine.endpoint));
      for (let start = 0; start < acknowledged.length; start += 100) {
        const batch = acknowledged.slice(start, start + 100);
        const found = await after.send(new BatchGetCommand({ RequestItems: { window: { Keys: batch.map(({ pk }) => ({ pk })), ConsistentRead: true } } }));
        const present = new Set((found.Responses?.window ?? []).map((item) => String(item.pk)));
        for (const entry of batch) {
          if (!present.has(entry.pk)) {
            report.lost += 1;
            report.lost_ms_before_kill.push(killedAt - entry.at);
          }
        }
      }
      after.destroy();
      report.cycles += 1;
      report.acknowledged += acknowledged.length;
      report.acknowledged_after_kill += acknowledged.filter((entry) => entry.at > killedAt).length;
    }
    await engine.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
