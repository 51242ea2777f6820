/**
 * Clock offsets that keep a test's run inside one clock hour, where an hourly
 * rate limit (and a daily quota) is exact: for a clock installed in process
 * (`installClockInHour`, test/support/keys.ts) or injected into a child
 * process (`shiftedClockEnv`, test/support/local-runtime.ts).
 */
import { MS_PER_HOUR, MS_PER_MINUTE } from '../../lambda/platform/clock';

/**
 * The offset that keeps a run of up to `room` minutes inside one clock hour
 * (where an hourly rate limit is exact), at least `from` minutes into it: 0
 * when the real clock already is, else forward to the next such moment.
 * Never back: stored TTLs derive from the clock, and DynamoDB Local removes
 * expired items.
 */
export function offsetIntoHour(now: number = Date.now(), { from = 5, room = 10 } = {}): number {
  const hourStart = Math.floor(now / MS_PER_HOUR) * MS_PER_HOUR;
  const minute = (now - hourStart) / MS_PER_MINUTE;
  if (minute >= from && minute <= 60 - room) return 0;
  return (minute < from ? hourStart : hourStart + MS_PER_HOUR) + from * MS_PER_MINUTE - now;
}

/** The offset (forward, within the next hour) to the next moment a clock shows `minute` (fractional) minutes past an hour. */
export function offsetToMinute(minute: number, now: number = Date.now()): number {
  const target = Math.floor(now / MS_PER_HOUR) * MS_PER_HOUR + minute * MS_PER_MINUTE;
  return target >= now ? target - now : target + MS_PER_HOUR - now;
}
