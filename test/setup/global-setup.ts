/**
 * Jest global setup: ONE DynamoDB Local (in memory, free port) for the whole
 * run, with the tables built from lambda/contract/tables.ts. Its
 * endpoint and the table names reach the workers through `process.env`
 * (inherited) and, as a fallback, a JSON file named after the jest process
 * id (read by test/setup/env.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoClient, startDynamoLocal, type DynamoLocal } from '../../local/dynamodb-local';
import { ensureTables } from '../../local/tables';
import { ISSUED_VALUES_FILE_ENV } from '../support/issued-values';
import { runFilePath } from './run-file';

export const TEST_KEY_TABLE = 'test-api-keys';
export const TEST_AUDIT_TABLE = 'test-api-key-audit';

/** What global setup leaves for global teardown (same process). */
export interface TestRun {
  readonly engine: DynamoLocal;
  readonly runDir: string;
  readonly runFile: string;
}

export const TEST_RUN_GLOBAL = '__apiKeyServiceTestRun';

export default async function globalSetup(): Promise<void> {
  // Private (0700) folder for this run's issued-values registry.
  const runDir = mkdtempSync(path.join(tmpdir(), 'api-key-service-jest-run-'));
  let engine: DynamoLocal | undefined;
  try {
    engine = await startDynamoLocal({ inMemory: true });
    const env: Record<string, string> = {
      DYNAMODB_ENDPOINT: engine.endpoint,
      KEY_TABLE_NAME: TEST_KEY_TABLE,
      AUDIT_TABLE_NAME: TEST_AUDIT_TABLE,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      [ISSUED_VALUES_FILE_ENV]: path.join(runDir, 'issued-values.txt'),
      // What the stack generates per deployment: a fresh key per run.
      CURSOR_SIGNING_KEY: randomBytes(32).toString('base64url'),
    };
    // Dummy credentials only: a session token or profile from the shell must not mix in.
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    Object.assign(process.env, env);

    const client = localDynamoClient(engine.endpoint);
    try {
      await ensureTables(client, { keyTable: TEST_KEY_TABLE, auditTable: TEST_AUDIT_TABLE });
    } finally {
      client.destroy();
    }

    const runFile = runFilePath(process.pid);
    writeFileSync(runFile, JSON.stringify({ env, dynamoLocalPid: engine.pid, runDir }, null, 2), { mode: 0o600 });
    const run: TestRun = { engine, runDir, runFile };
    (globalThis as Record<string, unknown>)[TEST_RUN_GLOBAL] = run;
  } catch (error) {
    await engine?.stop();
    rmSync(runDir, { recursive: true, force: true });
    throw error;
  }
}
