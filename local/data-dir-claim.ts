/**
 * The data-directory lock, `<DATA_DIR>/runtime.json`: with `-sharedDb
 * -dbPath` DynamoDB Local keeps one SQLite file that only one engine may
 * open at a time, so the local runtime (`npm start`) and `npm run
 * bootstrap` claim the directory here before they start one, and a live
 * owner's claim is refused.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from './process-alive';

// ---------------------------------------------------------------------------
// The data-directory lock: `<DATA_DIR>/runtime.json`.

/** What `<DATA_DIR>/runtime.json` says about the process that owns the store. */
export interface RuntimeRecord {
  readonly pid: number;
  /** `start` for `npm start`, `bootstrap` for a bootstrap run with its own engine. */
  readonly owner: 'start' | 'bootstrap';
  readonly startedAt: string;
  /** Set once the engine answers. */
  readonly dynamodbEndpoint?: string;
  readonly keyTableName?: string;
  readonly auditTableName?: string;
  /** Set once the HTTP server listens (`npm start` only). */
  readonly baseUrl?: string;
}

export interface DataDirClaim {
  /** Adds facts (endpoint, URL) to the record. */
  update(patch: Partial<Omit<RuntimeRecord, 'pid' | 'owner'>>): void;
  /** Removes the record if it is still ours. */
  release(): void;
}

/** `<DATA_DIR>/runtime.json` is held by a live process. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: RuntimeRecord,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by ${holder.owner === 'start' ? 'npm start' : 'a bootstrap run'} (pid ${holder.pid}). ` +
        'Stop it first, or use another DATA_DIR.',
    );
    this.name = 'DataDirInUseError';
  }
}

export function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

/**
 * The record of the live process holding `dataDir`, or undefined. A record
 * left by a process that died without cleaning up is removed.
 */
export function readRuntimeRecord(dataDir: string): RuntimeRecord | undefined {
  const file = runtimeFilePath(dataDir);
  let record: RuntimeRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as RuntimeRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable or half-written: treat as stale.
    unlinkSync(file);
    return undefined;
  }
  if (typeof record.pid === 'number' && (record.pid === process.pid || processAlive(record.pid))) return record;
  try {
    unlinkSync(file);
  } catch {
    // Someone else removed it first.
  }
  return undefined;
}

/**
 * Takes the data directory for this process by creating `runtime.json`
 * exclusively. Only one process may open the DynamoDB Local store of a
 * directory at a time.
 *
 * @throws DataDirInUseError when a live process holds it.
 */
export function claimDataDir(dataDir: string, owner: RuntimeRecord['owner']): DataDirClaim {
  mkdirSync(dataDir, { recursive: true });
  const file = runtimeFilePath(dataDir);
  let record: RuntimeRecord = { pid: process.pid, owner, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(record, null, 2) + '\n', { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
      const holder = readRuntimeRecord(dataDir);
      if (holder) throw new DataDirInUseError(dataDir, holder);
    }
  }

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as RuntimeRecord;
      if (current.pid === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);

  return {
    update(patch) {
      if (released) return;
      record = { ...record, ...patch };
      writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
    },
    release,
  };
}
