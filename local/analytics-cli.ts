/**
 * `npm run -s analytics -- --sql "<query>" [--refresh]`: SQL over the
 * verification analytics the local runtime exported (docs/analytics.md),
 * with DuckDB, the same Parquet files and the same table Athena reads in
 * AWS: `verifications` (`start, team_id, key_id, identity_id, scope,
 * outcome, count`, and the partition `day`). Prints one JSON object a row.
 *
 * `--refresh` first rolls up and exports every hour counted so far, the
 * running one included (through `npm start`'s engine, or one of its own on
 * the data directory when nothing runs there). Counts `npm start` holds in
 * memory are written within 20 s; they are not reached from here.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { documentClientOf } from '../lambda/composition/dynamo';
import { folderRollupPorts } from '../lambda/composition/analytics';
import { rollUp } from '../lambda/handlers/roll-up-analytics';
import { EXPORT_TABLE_PREFIX } from '../lambda/contract/analytics-export';
import { localDynamoClient } from './dynamodb-local';
import { openLocalStore } from './key-stores';
import { dataDirFrom } from './settings';
import { analyticsDir } from './analytics-files';

const USAGE = 'usage: npm run -s analytics -- --sql "<query>" [--refresh]   (the table is `verifications`; see docs/analytics.md)';

/** The columns of an empty table, when nothing has been exported yet. */
const EMPTY_TABLE =
  'CREATE VIEW verifications AS SELECT * FROM (VALUES (NULL::TIMESTAMP, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, NULL::BIGINT, NULL::VARCHAR)) AS t(start, team_id, key_id, identity_id, scope, outcome, count, day) WHERE false';

export interface AnalyticsArgs {
  readonly sql: string;
  readonly refresh: boolean;
}

export function parseAnalyticsArgs(argv: readonly string[]): AnalyticsArgs {
  const at = argv.indexOf('--sql');
  const sql = at >= 0 ? argv[at + 1] : undefined;
  const unknown = argv.filter((arg, index) => arg.startsWith('--') && arg !== '--sql' && arg !== '--refresh' && index !== at + 1);
  if (!sql || unknown.length > 0) throw new Error(unknown.length > 0 ? `unknown option ${unknown[0]}` : '--sql "<query>" is required');
  return { sql, refresh: argv.includes('--refresh') };
}

/** Rolls up and exports every hour counted so far in `dataDir`'s store. */
export async function refresh(dataDir: string, say: (line: string) => void): Promise<{ hours: number }> {
  const store = await openLocalStore(dataDir, process.env, say);
  const client = localDynamoClient(store.endpoint as string);
  try {
    const { hours } = await rollUp(folderRollupPorts(documentClientOf(client), store.keyTableName, analyticsDir(dataDir)), { openHours: true });
    return { hours };
  } finally {
    client.destroy();
    await store.release();
  }
}

/** A DuckDB value as JSON can hold it. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** The rows of `sql` over the Parquet files under `dataDir`, as plain JSON values. */
export async function query(dataDir: string, sql: string): Promise<Record<string, unknown>[]> {
  const folder = path.join(analyticsDir(dataDir), EXPORT_TABLE_PREFIX);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const files = path.join(folder, '**', '*.parquet').replaceAll("'", "''");
    await connection.run(
      existsSync(folder)
        ? `CREATE VIEW verifications AS SELECT * FROM read_parquet('${files}', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`
        : EMPTY_TABLE,
    );
    const reader = await connection.runAndReadAll(sql);
    // Whole numbers as numbers where they are exact (a count), else as strings; times as ISO 8601.
    return reader.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, plain(value)])));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function main(argv: readonly string[]): Promise<void> {
  let args: AnalyticsArgs;
  try {
    args = parseAnalyticsArgs(argv);
  } catch (error) {
    process.stderr.write(`analytics: ${(error as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const dataDir = dataDirFrom();
  if (args.refresh) {
    const { hours } = await refresh(dataDir, (line) => process.stderr.write(`${line}\n`));
    process.stderr.write(`exported ${hours} team hour(s) to ${path.join(analyticsDir(dataDir), EXPORT_TABLE_PREFIX)}\n`);
  }
  for (const row of await query(dataDir, args.sql)) process.stdout.write(`${JSON.stringify(row)}\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`analytics: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
