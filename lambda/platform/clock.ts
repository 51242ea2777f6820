/**
 * The clock port. Services take a `Clock` instead of calling `Date.now()`, so
 * grace-period boundaries are tested by moving a clock, never by sleeping.
 */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock that stands still until moved; for tests and the local runtime. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string | number = Date.now()) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date | string | number): void {
    this.current = new Date(at).getTime();
  }
}

export const MS_PER_DAY = 24 * 60 * 60 * 1000;
export const MS_PER_MINUTE = 60 * 1000;
export const MS_PER_HOUR = 60 * MS_PER_MINUTE;

/** Epoch seconds, as DynamoDB TTL wants them. */
export function epochSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
