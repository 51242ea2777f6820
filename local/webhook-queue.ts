/**
 * The local runtime's webhook delivery queue: the port the AWS queue (SQS,
 * and EventBridge Scheduler past 15 minutes) fills, on in-process timers.
 *
 * Every pending job is written to a file under DATA_DIR before `later`
 * resolves and removed only after its attempt ran, so a process killed
 * mid-retry loses nothing: the next start reads the file and runs each job
 * at its time (at once when its time passed while stopped).
 *
 * Time: when a job is due is decided by the injected clock. With a
 * `ManualClock`, `tick`/`runDue` run what is due without waiting, so the
 * suite tests the whole retry schedule (5 s … 10 h) in milliseconds.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ManualClock, type Clock } from '../lambda/platform/clock';
import type { DeliveryQueue } from '../lambda/domain/webhook-ports';
import type { DeliveryJob } from '../lambda/domain/webhook-endpoints';
import { errorField } from '../lambda/platform/observability';
import { MAX_TIMER_DELAY_MS } from './scheduler';

export interface LocalDeliveryQueueOptions {
  readonly clock: Clock;
  /** One attempt (the delivery function's `attemptDelivery`). */
  readonly run: (job: DeliveryJob) => Promise<unknown>;
  /** Where pending jobs are kept; default: memory only. */
  readonly file?: string;
  readonly logger?: Pick<Logger, 'warn'>;
}

interface Pending {
  job: DeliveryJob;
  /** Epoch ms. */
  at: number;
}

export interface LocalDeliveryQueue extends DeliveryQueue {
  /** Runs every job due by the clock and waits for them; returns how many ran. */
  runDue(): Promise<number>;
  /** Moves a `ManualClock` forward by `ms`, then `runDue()`. */
  tick(ms: number): Promise<number>;
  /** What waits, soonest first. */
  pending(): Array<DeliveryJob & { at: string }>;
  /** Waits for the attempts running now. */
  idle(): Promise<void>;
  /** Clears the timers (pending jobs stay in the file) and waits for running attempts. */
  stop(): Promise<void>;
}

let manualRequests = 0;
/** A job's name: one per attempt of an event to an endpoint; each redelivery asked for is a job of its own. */
const nameOf = (job: DeliveryJob) => `${job.event_id}#${job.endpoint_id}#${job.attempt}${job.manual ? `#manual${++manualRequests}` : ''}`;

export function createLocalDeliveryQueue(options: LocalDeliveryQueueOptions): LocalDeliveryQueue {
  const { clock, file } = options;
  const pending = new Map<string, Pending>();
  const running = new Set<Promise<unknown>>();
  /** Jobs whose attempt is running (a timer and a `runDue` may look at the same moment). */
  const inFlight = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const save = () => {
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify([...pending.values()], null, 1) + '\n');
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

  const runOne = (name: string, entry: Pending) => {
    inFlight.add(name);
    const attempt = options
      .run(entry.job)
      .catch((error: unknown) => options.logger?.warn('webhook attempt failed to run; kept for the next start', { job: name, ...errorField(error) }))
      .then(() => {
        // Kept until its attempt ran: a crash before this line runs it again on the next start.
        if (pending.get(name) === entry) pending.delete(name);
        inFlight.delete(name);
        save();
      });
    running.add(attempt);
    void attempt.finally(() => running.delete(attempt));
    return attempt;
  };

  const runDue = async (): Promise<number> => {
    const now = clock.now().getTime();
    const due = [...pending].filter(([name, entry]) => entry.at <= now && !inFlight.has(name));
    const runs = due.map(([name, entry]) => runOne(name, entry));
    // Also those a timer started a moment ago: when this resolves, every due attempt has run.
    while (running.size > 0) await Promise.all([...running]);
    arm();
    return runs.length;
  };

  if (file) {
    try {
      for (const entry of JSON.parse(readFileSync(file, 'utf8')) as Pending[]) pending.set(nameOf(entry.job), entry);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(`Unreadable webhook queue ${file}: ${(error as Error).message}`, { cause: error });
    }
    arm();
  }

  return {
    async later(job, delaySeconds) {
      if (stopped) throw new Error('the webhook queue has stopped');
      const entry = { job, at: clock.now().getTime() + Math.max(0, delaySeconds) * 1000 };
      pending.set(nameOf(job), entry);
      save();
      arm();
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
