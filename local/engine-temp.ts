/**
 * A temp folder per DynamoDB Local engine (its `java.io.tmpdir`).
 *
 * The engine copies its SQLite library (900 KB) out of its jar into
 * `java.io.tmpdir` at every start, under a new name, and never removes it:
 * the OS temp folder gained one such file per `npm start`, and about ten per
 * `npm test`. Each engine's copy now goes into a folder of its own, removed
 * when the engine exits or this process does. The folders of processes that
 * were killed outright (SIGKILL runs no exit handler) are removed when the
 * next engine starts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processAlive } from './process-alive';

const PREFIX = 'apikeys-dynamodb-engine-';

export interface EngineTempDir {
  readonly dir: string;
  /** Removes the folder (once; later calls do nothing). */
  readonly remove: () => void;
}

/** A new folder named after this process, removed by `remove()` or when this process exits. */
export function engineTempDir(): EngineTempDir {
  removeOrphans();
  const dir = mkdtempSync(path.join(tmpdir(), `${PREFIX}${process.pid}-`));
  const remove = (): void => {
    process.removeListener('exit', remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', remove);
  return { dir, remove };
}

/** Removes the engine folders of processes that no longer run. */
function removeOrphans(): void {
  for (const name of readdirSync(tmpdir())) {
    const owner = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : NaN;
    if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
  }
}
