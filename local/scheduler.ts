/**
 * The local runtime's revocation scheduler: the same port as the EventBridge
 * adapter, on in-process timers.
 *
 * Timers live in memory, so a restart would lose them: `rearmFromStore` scans
 * the key table for every key still in a transition, arms each, and expires
 * at once those already past their end. A restart therefore loses no
 * expiration, only delays it to the next start.
 *
 * Time: whether a transition is due is decided by the injected clock (the
 * one the services use), never by the timer alone. A timer that wakes early
 * (a long wait split into chained timers, a clock moved by hand) re-arms
 * itself. With a `ManualClock`, `tick`/`runDue` fire what is due without
 * waiting for timers, so tests move time instead of sleeping.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '../lambda/platform/clock';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';
import { terminalObservability } from './terminal-observability';
import type { RevocationRequest, RevocationScheduler } from '../lambda/domain/revocation-scheduler';

/** The longest delay `setTimeout` honours (about 24.8 days); longer waits are chained. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface LocalSchedulerOptions {
  /** Where its lines go. Default: the terminal's (local/terminal-observability.ts). */
  readonly logger?: Logger;
  /** Decides when a transition is due; must be the clock the services use. Default: the system clock. */
  clock?: Clock;
  /** Runs one expiry (locally: the expire function's handler, as EventBridge Scheduler invokes it). */
  expire: (request: RevocationRequest) => Promise<unknown>;
  /** Tries per expiry before giving up until the next `rearmFromStore` (as Scheduler retries). Default: 3. */
  maxAttempts?: number;
  /** Wait between tries, by the clock. Default: 60 s. */
  retryDelayMs?: number;
}

/** A transition the scheduler waits for. */
export interface PendingExpiry extends RevocationRequest {
  /** ISO 8601. */
  at: string;
}

export interface RearmSummary {
  /** Transitions found in the store that end in the future: armed. */
  armed: number;
  /** Transitions already past their end: expired at once (awaited). */
  firedAtOnce: number;
}

export interface LocalRevocationScheduler extends RevocationScheduler {
  /**
   * Arms every key of the table that is in a transition (active, with a
   * previous value); runs those already due before resolving.
   */
  rearmFromStore(store: KeyTableAccess): Promise<RearmSummary>;
  /** Fires every schedule due by the clock and waits for all running expiries; returns how many it fired. */
  runDue(): Promise<number>;
  /** Moves a `ManualClock` forward by `ms`, then `runDue()`. */
  tick(ms: number): Promise<number>;
  /** What is armed, soonest first. */
  pending(): PendingExpiry[];
  /** Clears every timer and waits for running expiries; `schedule` fails afterwards. */
  stop(): Promise<void>;
}

interface Entry {
  readonly request: RevocationRequest;
  /** Epoch ms. */
  at: number;
  attempts: number;
  timer?: NodeJS.Timeout;
}

const nameOf = (request: RevocationRequest) => `${request.keyId}#g${request.generation}`;

/** The key table, for `rearmFromStore`'s scan. */
export interface KeyTableAccess {
  readonly db: DynamoDBDocumentClient;
  readonly keyTableName: string;
}

function notDueUntil(result: unknown): number | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { outcome, transition_ends_at: endsAt } = result as { outcome?: unknown; transition_ends_at?: unknown };
  if (outcome !== 'not_due' || typeof endsAt !== 'string') return undefined;
  const at = Date.parse(endsAt);
  return Number.isNaN(at) ? undefined : at;
}

/** Creates the local scheduler. Give it to `createServices` and call `rearmFromStore` on start. */
export function createLocalScheduler(options: LocalSchedulerOptions): LocalRevocationScheduler {
  return new LocalScheduler(options);
}

/** The armed expiries by name (each with its timer), the expiries running, and whether the scheduler stopped. */
class LocalScheduler implements LocalRevocationScheduler {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: LocalSchedulerOptions) {
    this.log = options.logger ?? terminalObservability().logger;
    this.clock = options.clock ?? systemClock;
  }

  async schedule(request: PendingExpiry): Promise<void> {
    if (this.stopped) throw new Error('The local scheduler is stopped');
    const at = Date.parse(request.at);
    if (Number.isNaN(at)) throw new Error(`Not an instant: ${request.at}`);
    const existing = this.entries.get(nameOf(request));
    if (existing) clearTimer(existing);
    // Same transition scheduled again (a retried regenerate): the latest call wins, as with EventBridge.
    this.arm({ request: { keyId: request.keyId, generation: request.generation }, at, attempts: 0 });
  }

  async cancel(request: RevocationRequest): Promise<void> {
    const entry = this.entries.get(nameOf(request));
    if (!entry) return;
    clearTimer(entry);
    this.entries.delete(nameOf(request));
  }

  async rearmFromStore(deps: KeyTableAccess): Promise<RearmSummary> {
    const found = await transitionsIn(deps, this.clock);
    for (const transition of found) await this.schedule(transition);
    const now = this.clock.now().getTime();
    const dueCount = found.filter((transition) => Date.parse(transition.at) <= now).length;
    await this.runDue();
    this.log.info('local scheduler re-armed', { armed: found.length - dueCount, fired_at_once: dueCount });
    return { armed: found.length - dueCount, firedAtOnce: dueCount };
  }

  async runDue(): Promise<number> {
    const now = this.clock.now().getTime();
    const due = [...this.entries.values()].filter((entry) => entry.at <= now).sort((a, b) => a.at - b.at);
    for (const entry of due) void this.fire(entry);
    await this.settle();
    return due.length;
  }

  async tick(ms: number): Promise<number> {
    const manual = this.clock as Clock & { advance?: (ms: number) => void };
    if (typeof manual.advance !== 'function') throw new Error('tick needs a ManualClock');
    manual.advance(ms);
    return this.runDue();
  }

  pending(): PendingExpiry[] {
    return [...this.entries.values()].sort((a, b) => a.at - b.at).map((entry) => ({ ...entry.request, at: new Date(entry.at).toISOString() }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.entries.values()) clearTimer(entry);
    this.entries.clear();
    await this.settle();
  }

  private async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private arm(entry: Entry): void {
    clearTimer(entry);
    this.entries.set(nameOf(entry.request), entry);
    const delay = Math.max(0, Math.min(entry.at - this.clock.now().getTime(), MAX_TIMER_DELAY_MS));
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.entries.get(nameOf(entry.request)) !== entry) return;
      if (this.clock.now().getTime() < entry.at) this.arm(entry);
      else void this.fire(entry);
    }, delay);
    // A pending expiry never keeps the process alive: the next start re-arms it.
    entry.timer.unref();
  }

  private fire(entry: Entry): Promise<void> {
    const name = nameOf(entry.request);
    if (this.entries.get(name) === entry) this.entries.delete(name);
    clearTimer(entry);
    entry.attempts += 1;
    const run = this.attempt(entry, name);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return run;
  }

  /** One attempt: a fire before the end waits for the end, a failure is tried again up to `maxAttempts`. */
  private async attempt(entry: Entry, name: string): Promise<void> {
    try {
      const result = await this.options.expire(entry.request);
      this.log.info('local expiry ran', {
        key_id: entry.request.keyId,
        generation: entry.request.generation,
        outcome: (result as { outcome?: unknown } | undefined)?.outcome,
      });
      const dueAt = notDueUntil(result);
      // Fired before the end (a replaced schedule): wait for the end, unless another schedule took its place.
      if (dueAt !== undefined && !this.stopped && !this.entries.has(name)) this.arm({ ...entry, at: dueAt, attempts: 0, timer: undefined });
    } catch (error) {
      const retry = entry.attempts < (this.options.maxAttempts ?? 3) && !this.stopped && !this.entries.has(name);
      this.log.error('local expiry failed', {
        key_id: entry.request.keyId,
        generation: entry.request.generation,
        attempt: entry.attempts,
        will_retry: retry,
        ...errorField(error),
      });
      if (retry) this.arm({ ...entry, at: this.clock.now().getTime() + (this.options.retryDelayMs ?? 60_000), timer: undefined });
    }
  }
}

function clearTimer(entry: Entry): void {
  if (entry.timer) clearTimeout(entry.timer);
  entry.timer = undefined;
}

/** Every key of the table in a transition (active, with a previous value), with the end of its transition. */
async function transitionsIn(deps: KeyTableAccess, clock: Clock): Promise<PendingExpiry[]> {
  const found: PendingExpiry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new ScanCommand({
        TableName: deps.keyTableName,
        FilterExpression: 'entity = :key AND #state = :active AND attribute_exists(previous_hash)',
        ProjectionExpression: 'id, generation, transition_ends_at, grace_mode',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':key': 'key', ':active': 'active' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const {
        id,
        generation,
        transition_ends_at: endsAt,
        grace_mode: mode,
      } = item as { id: string; generation: number; transition_ends_at?: string; grace_mode?: string };
      // A previous value with no end recorded cannot be valid: expire it now. A use-driven grace is looked at now:
      // its run ends it or sets its next check (the check armed before the stop was lost with its timer).
      found.push({ keyId: id, generation, at: endsAt && !mode ? endsAt : clock.now().toISOString() });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}
