/**
 * The sweep every integration file runs over its own tables after its tests
 * (test/setup/file-tables.ts) finds a value stored whole or by its random
 * tail, in either table, and nothing in an item without one.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambda/composition/dynamo';
import { config } from '../../lambda/composition/config';
import { sweepPlaintext } from '../support/plaintext-scan';

const VALUE = 'sk_live_01ARZ3NDEKTSV4RRFFQ69G5FAV_s3cr3tRandomPartOfTheValue1';

describe('plaintext sweep of a test file’s tables', () => {
  const stored = [
    { table: config.keyTableName, key: { pk: 'SWEEP#whole', sk: 'SWEEP' }, note: `the value ${VALUE}` },
    { table: config.auditTableName, key: { pk: 'SWEEP#tail', sk: 'SWEEP' }, note: `its tail ${VALUE.slice(-20)}` },
    { table: config.keyTableName, key: { pk: 'SWEEP#clean', sk: 'SWEEP' }, note: 'sk_live_01ARZ3NDEKTSV4RRFFQ69G5FAV (the id only)' },
  ];

  afterAll(async () => {
    // Leave the file's tables clean for its own sweep.
    for (const { table, key } of stored) await documentClient().send(new DeleteCommand({ TableName: table, Key: key }));
  });

  it('reports each item holding the value or its last 20 characters, by table and key, and no other', async () => {
    // Prepare
    for (const { table, key, note } of stored) await documentClient().send(new PutCommand({ TableName: table, Item: { ...key, note } }));

    // Act
    const { itemsScanned, findings } = await sweepPlaintext([VALUE], [config.keyTableName, config.auditTableName]);

    // Assess
    expect(itemsScanned).toBe(3);
    expect(findings).toEqual([
      { table: config.keyTableName, pk: 'SWEEP#whole', sk: 'SWEEP' },
      { table: config.auditTableName, pk: 'SWEEP#tail', sk: 'SWEEP' },
    ]);
  });
});
