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
  return new JobQueue(options);
}

/** The queue: its pending jobs (kept in `file` when it has one), the attempts running, and the timer of the soonest. */
class JobQueue<J> implements LocalJobQueue<J> {
  private readonly waiting = new Map<string, Pending<J>>();
  private readonly running = new Set<Promise<unknown>>();
  /** Jobs whose attempt is running (a timer and a `runDue` may look at the same moment). */
  private readonly inFlight = new Set<string>();
  /** Attempts running now, by group. */
  private readonly runningIn = groupCounts();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Attempts started so far (what `runDue` counts). */
  private starts = 0;

  constructor(private readonly options: LocalJobQueueOptions<J>) {
    const { file } = options;
    if (!file) return;
    try {
      for (const [name, entry] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Pending<J>>)) this.waiting.set(name, entry);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(`Unreadable webhook queue ${file}: ${(error as Error).message}`, { cause: error });
    }
    this.arm();
  }

  async later(job: J, delaySeconds: number): Promise<void> {
    if (this.stopped) throw new Error('the local job queue has stopped');
    const entry = { job, at: this.options.clock.now().getTime() + Math.max(0, delaySeconds) * 1000 };
    this.waiting.set(this.options.nameOf(job), entry);
    this.save();
    this.arm();
  }

  async cancel(match: (name: string) => boolean): Promise<number> {
    const names = [...this.waiting.keys()].filter((name) => match(name) && !this.inFlight.has(name));
    for (const name of names) this.waiting.delete(name);
    if (names.length > 0) this.save();
    this.arm();
    return names.length;
  }

  async runDue(): Promise<number> {
    const before = this.starts;
    this.startDue();
    // Also those a timer or a freed group place started meanwhile: when this resolves, every due attempt has run.
    while (this.running.size > 0) await Promise.all([...this.running]);
    this.arm();
    return this.starts - before;
  }

  async tick(ms: number): Promise<number> {
    const { clock } = this.options;
    if (!(clock instanceof ManualClock)) throw new Error('tick needs a ManualClock');
    clock.advance(ms);
    return this.runDue();
  }

  pending(): Array<J & { at: string }> {
    return [...this.waiting.values()].sort((a, b) => a.at - b.at).map((entry) => ({ ...entry.job, at: new Date(entry.at).toISOString() }));
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private save(): void {
    const { file } = this.options;
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(this.waiting), null, 1) + '\n');
    renameSync(temporary, file);
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.waiting.size === 0) return;
    const soonest = Math.min(...[...this.waiting.values()].map((entry) => entry.at));
    const wait = Math.max(0, Math.min(soonest - this.options.clock.now().getTime(), MAX_TIMER_DELAY_MS));
    this.timer = setTimeout(() => void this.runDue(), wait);
    this.timer.unref?.();
  }

  private groupOf(job: J): string {
    return this.options.perGroup?.groupOf(job) ?? '';
  }

  /** Starts every due job its group has room for, earliest due first. */
  private startDue(): void {
    const now = this.options.clock.now().getTime();
    const limit = this.options.perGroup?.limit ?? Number.POSITIVE_INFINITY;
    const due = [...this.waiting].filter(([name, entry]) => entry.at <= now && !this.inFlight.has(name)).sort(([, a], [, b]) => a.at - b.at);
    for (const [name, entry] of due) {
      // Awaited by runDue and stop through `running`.
      if (this.runningIn.of(this.groupOf(entry.job)) < limit) void this.runOne(name, entry);
    }
  }

  private runOne(name: string, entry: Pending<J>): Promise<void> {
    this.starts += 1;
    this.inFlight.add(name);
    const group = this.groupOf(entry.job);
    this.runningIn.enter(group);
    const attempt = this.options.run(entry.job).then(
      () => {
        // Kept until it ran: a crash before this line runs it again on the next start.
        if (this.waiting.get(name) === entry) this.waiting.delete(name);
      },
      (error: unknown) => {
        // Failed to run (the store unreachable, an early fire): tried again later, as Lambda retries an asynchronous event.
        this.options.logger?.warn('a local job failed to run; trying again in 30 s', { job: name, ...errorField(error) });
        if (this.waiting.get(name) === entry) entry.at = this.options.clock.now().getTime() + RETRY_AFTER_FAILURE_MS;
      },
    );
    const settled = attempt.then(() => {
      this.inFlight.delete(name);
      this.runningIn.leave(group);
      this.save();
      // A place in its group is free: the next due job of the group may start.
      if (!this.stopped) this.startDue();
    });
    this.running.add(settled);
    void settled.finally(() => this.running.delete(settled));
    return settled;
  }
}
