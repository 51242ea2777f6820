/**
 * Every key value a test run issues, from any jest worker, so the global
 * teardown can sweep the tables for plaintext. Values are appended to one
 * file in the run's private temp dir (0700, removed by the teardown); they
 * are throwaway keys of an in-memory DynamoDB Local.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** Environment variable naming the run's registry file (set by global setup). */
export const ISSUED_VALUES_FILE_ENV = 'ISSUED_VALUES_FILE';

/** The file beside the registry where each integration file adds how many items its own tables held when swept. */
export const SWEPT_COUNTS_FILE = 'swept-items.txt';

function registryFile(): string {
  const file = process.env[ISSUED_VALUES_FILE_ENV];
  if (!file) throw new Error(`${ISSUED_VALUES_FILE_ENV} is not set: run tests through jest (test/setup/global-setup.ts)`);
  return file;
}

/** Remembers a value issued during the run. */
export function recordIssuedValue(value: string): void {
  if (value === '') return;
  // One short line per append: concurrent appends from workers stay whole.
  appendFileSync(registryFile(), `${value}\n`, { mode: 0o600 });
}

/** Every value recorded so far in this run, deduplicated. */
export function readIssuedValues(): string[] {
  const file = registryFile();
  if (!existsSync(file)) return [];
  return [
    ...new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ),
  ];
}
