/** Whether a process still runs: the one check the local runtime's locks and temp-folder sweeps share. */
import { readFileSync } from 'node:fs';

/** True while `pid` runs (another user's too); false once it has exited, or is a zombie nobody reaped. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process nobody reaped yet (a zombie, common in containers whose
  // first process does not reap) still answers signal 0, but holds nothing.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): trust signal 0
  }
}
