/**
 * The local runtime's one-shot jobs on in-process timers: what SQS delays
 * and EventBridge Scheduler one-shot schedules hold in AWS (webhook retries,
 * expiry notices).
 *
 * Every pending job is written to a file under DATA_DIR before `later`
 * resolves and removed only after it ran, so a process killed before a job
 * ran loses nothing: the next start reads the file and runs each job at its
 * time (at once when its time passed while stopped).
 *
 * Time: when a job is due is decided by the injected clock. With a
 * `ManualClock`, `tick`/`runDue` run what is due without waiting, so the
 * suite tests a 27-hour retry schedule or a 7-day warning in milliseconds.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ManualClock, type Clock } from '../lambda/platform/clock';
import { errorField } from '../lambda/platform/observability';
import { MAX_TIMER_DELAY_MS } from './scheduler';

export interface LocalJobQueueOptions<J> {
  readonly clock: Clock;
  /** Runs one job (a webhook attempt, an expiry notice). */
  readonly run: (job: J) => Promise<unknown>;
  /** A job's name: a job `later` is given under a name already waiting replaces it. */
  readonly nameOf: (job: J) => string;
  /** Where pending jobs are kept; default: memory only. */
  readonly file?: string;
  /**
   * Jobs of one group run at most `limit` at a time, the earliest due first;
   * the others wait in the queue (a webhook endpoint's attempts: a slow
   * receiver holds its own group only). Default: no limit.
   */
  readonly perGroup?: { readonly groupOf: (job: J) => string; readonly limit: number };
  readonly logger?: Pick<Logger, 'warn'>;
}

/** Wait before a job that failed to run is tried again. */
export const RETRY_AFTER_FAILURE_MS = 30_000;

interface Pending<J> {
  job: J;
  /** Epoch ms. */
  at: number;
}

export interface LocalJobQueue<J> {
  /** Runs `job` after `delaySeconds` (0: as soon as it can), kept in the file until it ran. */
  later(job: J, delaySeconds: number): Promise<void>;
  /** Drops the waiting jobs whose names `match` selects; returns how many. */
  cancel(match: (name: string) => boolean): Promise<number>;
  /** Runs every job due by the clock and waits for them; returns how many ran. */
  runDue(): Promise<number>;
  /** Moves a `ManualClock` forward by `ms`, then `runDue()`. */
  tick(ms: number): Promise<number>;
  /** What waits, soonest first. */
  pending(): Array<J & { at: string }>;
  /** Waits for the attempts running now. */
  idle(): Promise<void>;
  /** Clears the timers (pending jobs stay in the file) and waits for running attempts. */
  stop(): Promise<void>;
}

/** How many of each group run now; a group that runs nothing is forgotten (endpoints come and go). */
function groupCounts() {
  const counts = new Map<string, number>();
  return {
    of: (group: string) => counts.get(group) ?? 0,
    enter: (group: string) => counts.set(group, (counts.get(group) ?? 0) + 1),
    leave(group: string) {
      const left = (counts.get(group) ?? 1) - 1;
      if (left > 0) counts.set(group, left);
      else counts.delete(group);
    },
  };
}

export function createLocalJobQueue<J>(options: LocalJobQueueOptions<J>): LocalJobQueue<J> {
  const { clock, file, nameOf } = options;
  const pending = new Map<string, Pending<J>>();
  const running = new Set<Promise<unknown>>();
  /** Jobs whose attempt is running (a timer and a `runDue` may look at the same moment). */
  const inFlight = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const save = () => {
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(pending), null, 1) + '\n');
    renameSync(temporary, file);
  };

  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (stopped || pending.size === 0) return;
    const soonest = Math.min(...[...pending.values()].map((entry) => entry.at));
    const wait = Math.max(0, Math.min(soonest - clock.now().getTime(), MAX_TIMER_DELAY_MS));
    timer = setTimeout(() => void runDue(), wait);
    timer.unref?.();
  };

  /** Attempts running now, by group. */
  const runningIn = groupCounts();
  const groupOf = (job: J) => options.perGroup?.groupOf(job) ?? '';

  /** Attempts started so far (what `runDue` counts). */
  let starts = 0;

  const runOne = (name: string, entry: Pending<J>) => {
    starts += 1;
    inFlight.add(name);
    const group = groupOf(entry.job);
    runningIn.enter(group);
    const attempt = options.run(entry.job).then(
      () => {
        // Kept until it ran: a crash before this line runs it again on the next start.
        if (pending.get(name) === entry) pending.delete(name);
      },
      (error: unknown) => {
        // Failed to run (the store unreachable, an early fire): tried again later, as Lambda retries an asynchronous event.
        options.logger?.warn('a local job failed to run; trying again in 30 s', { job: name, ...errorField(error) });
        if (pending.get(name) === entry) entry.at = clock.now().getTime() + RETRY_AFTER_FAILURE_MS;
      },
    );
    const settled = attempt.then(() => {
      inFlight.delete(name);
      runningIn.leave(group);
      save();
      // A place in its group is free: the next due job of the group may start.
      if (!stopped) startDue();
    });
    running.add(settled);
    void settled.finally(() => running.delete(settled));
    return settled;
  };

  /** Starts every due job its group has room for, earliest due first. */
  const startDue = (): void => {
    const now = clock.now().getTime();
    const limit = options.perGroup?.limit ?? Number.POSITIVE_INFINITY;
    const due = [...pending].filter(([name, entry]) => entry.at <= now && !inFlight.has(name)).sort(([, a], [, b]) => a.at - b.at);
    for (const [name, entry] of due) {
      // Awaited by runDue and stop through `running`.
      if (runningIn.of(groupOf(entry.job)) < limit) void runOne(name, entry);
    }
  };

  const runDue = async (): Promise<number> => {
    const before = starts;
    startDue();
    // Also those a timer or a freed group place started meanwhile: when this resolves, every due attempt has run.
    while (running.size > 0) await Promise.all([...running]);
    arm();
    return starts - before;
  };

  if (file) {
    try {
      for (const [name, entry] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Pending<J>>)) pending.set(name, entry);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(`Unreadable webhook queue ${file}: ${(error as Error).message}`, { cause: error });
    }
    arm();
  }

  return {
    async later(job, delaySeconds) {
      if (stopped) throw new Error('the local job queue has stopped');
      const entry = { job, at: clock.now().getTime() + Math.max(0, delaySeconds) * 1000 };
      pending.set(nameOf(job), entry);
      save();
      arm();
    },
    async cancel(match) {
      const names = [...pending.keys()].filter((name) => match(name) && !inFlight.has(name));
      for (const name of names) pending.delete(name);
      if (names.length > 0) save();
      arm();
      return names.length;
    },
    runDue,
    async tick(ms) {
      if (!(clock instanceof ManualClock)) throw new Error('tick needs a ManualClock');
      clock.advance(ms);
      return runDue();
    },
    pending: () => [...pending.values()].sort((a, b) => a.at - b.at).map((entry) => ({ ...entry.job, at: new Date(entry.at).toISOString() })),
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
