/**
 * A clock injected into a child process the tests start (`npm start`, the
 * bootstrap CLI), as libfaketime would: preloaded with
 * `NODE_OPTIONS=--require <this file>`, it moves the process's `Date` by
 * SHIFTED_CLOCK_OFFSET_MS, time still running at its real rate. Every clock
 * of the service reads `Date` (lambda/platform/clock.ts `systemClock`), so
 * a test can place a whole run inside one clock hour, where the hourly rate
 * limit is exact (`shiftedClockEnv` in test/support/local-runtime.ts).
 *
 * `Date` keeps its prototype, statics and `instanceof`: only a `Date`
 * made without arguments, `Date.now()` and `Date()` read the shifted time.
 */
/* global process */
'use strict';

const offset = Number(process.env.SHIFTED_CLOCK_OFFSET_MS);
if (!Number.isFinite(offset))
  throw new Error(`shifted-clock: SHIFTED_CLOCK_OFFSET_MS must be a number of milliseconds, not ${process.env.SHIFTED_CLOCK_OFFSET_MS}`);

const RealDate = Date;
const now = () => RealDate.now() + offset;

function ShiftedDate(...args) {
  if (!new.target) return new RealDate(now()).toString();
  return Reflect.construct(RealDate, args.length === 0 ? [now()] : args, new.target);
}
Object.setPrototypeOf(ShiftedDate, RealDate);
ShiftedDate.prototype = RealDate.prototype;
ShiftedDate.now = now;
globalThis.Date = ShiftedDate;
