/**
 * Jest global teardown: the plaintext sweep (fails the run when any stored
 * item holds an issued key value), then DynamoDB Local is stopped and the
 * run's temp files are removed.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ISSUED_VALUES_FILE_ENV, SWEPT_COUNTS_FILE, readIssuedValues } from '../support/issued-values';
import { sweepPlaintext } from '../support/plaintext-scan';
import { TEST_RUN_GLOBAL, type TestRun } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const run = (globalThis as Record<string, unknown>)[TEST_RUN_GLOBAL] as TestRun | undefined;
  try {
    const values = readIssuedValues();
    const { itemsScanned, findings } = await sweepPlaintext(values);
    // What the integration files swept of their own tables before deleting them (test/setup/file-tables.ts); a finding there failed that file.
    const countsFile = path.join(path.dirname(process.env[ISSUED_VALUES_FILE_ENV] as string), SWEPT_COUNTS_FILE);
    const counts = existsSync(countsFile) ? readFileSync(countsFile, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    const swept = counts.reduce((sum, count) => sum + count, itemsScanned);
    console.info(
      `plaintext sweep: scanned ${swept} items (${counts.length} test files' own tables and the shared ones) against ${values.length} issued values, ${findings.length} found`,
    );
    if (findings.length > 0) {
      const where = findings.map(({ table, pk, sk }) => `${table} ${pk} / ${sk}`).join('; ');
      throw new Error(`plaintext sweep: issued key values are stored in plaintext in ${findings.length} item(s): ${where}`);
    }
  } finally {
    await run?.engine.stop();
    if (run) {
      rmSync(run.runDir, { recursive: true, force: true });
      rmSync(run.runFile, { force: true });
    }
  }
}
