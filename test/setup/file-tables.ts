/**
 * Integration files only: creates this file's tables (named by
 * file-tables-env.ts) before its tests, and after them sweeps both for
 * plaintext key values (every value the run issued so far) and deletes them.
 * The count of items swept is added to the run's total, which the global
 * teardown prints.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { createTables } from '../../local/tables';
import { ISSUED_VALUES_FILE_ENV, SWEPT_COUNTS_FILE, readIssuedValues } from '../support/issued-values';
import { sweepPlaintext } from '../support/plaintext-scan';

const tables = () => ({ keyTable: process.env.KEY_TABLE_NAME as string, auditTable: process.env.AUDIT_TABLE_NAME as string });

beforeAll(async () => {
  const client = createDynamoClient();
  try {
    await createTables(client, tables());
  } finally {
    client.destroy();
  }
}, 60_000);

afterAll(async () => {
  const { keyTable, auditTable } = tables();
  const { itemsScanned, findings } = await sweepPlaintext(readIssuedValues(), [keyTable, auditTable]);
  appendFileSync(path.join(path.dirname(process.env[ISSUED_VALUES_FILE_ENV] as string), SWEPT_COUNTS_FILE), `${itemsScanned}\n`, { mode: 0o600 });
  if (findings.length > 0) {
    const where = findings.map(({ table, pk, sk }) => `${table} ${pk} / ${sk}`).join('; ');
    throw new Error(`plaintext sweep: issued key values are stored in plaintext in ${findings.length} item(s): ${where}`);
  }
  const client = createDynamoClient();
  try {
    for (const TableName of [keyTable, auditTable]) await client.send(new DeleteTableCommand({ TableName }));
  } finally {
    client.destroy();
  }
}, 60_000);
