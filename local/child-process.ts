/**
 * Supervision of the local runtime's child processes (DynamoDB Local's Java,
 * s3rver): they never outlive this process, and stopping one is idempotent.
 */
import type { ChildProcess } from 'node:child_process';

export interface SupervisedChild {
  /** Whether the child is still alive. */
  running(): boolean;
  /** Settles when the child has exited (or never started). */
  readonly exited: Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; safe to call twice. */
  stop(): Promise<void>;
}

export function superviseChild(child: ChildProcess, graceMs = 5000): SupervisedChild {
  let alive = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      alive = false;
      resolve();
    });
    // A spawn failure (no such program) emits `error` and never `exit`.
    child.once('error', () => {
      if (child.pid === undefined) {
        alive = false;
        resolve();
      }
    });
  });

  // `exit` handlers run for process.exit() and for an uncaught exception; a
  // synchronous kill is the only thing that can happen there.
  const killOnExit = () => {
    if (alive) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (alive) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(killer);
      }
      process.removeListener('exit', killOnExit);
    })();
    return stopping;
  };

  return { running: () => alive, exited, stop };
}
