/**
 * The load suites' counts, and the runs of the limits and exact-writes
 * properties (docs/architecture.md, Tests): `npm test` runs a quarter of each, CI's long run the full counts (`LOAD_SCALE=1`, `.ci/run`),
 * as `FUZZ_RUNS` and `PROPERTY_RUNS` do for the fuzz and property suites.
 * What a suite asserts is stated against the counts it ran, so a slice
 * shows the same thing as the full run, over less traffic.
 */
export const LOAD_SCALE = Number(process.env.LOAD_SCALE ?? 0.25);

if (!(LOAD_SCALE > 0 && LOAD_SCALE <= 1)) throw new Error(`LOAD_SCALE must be in (0, 1], not ${process.env.LOAD_SCALE}`);

/** `full` scaled by LOAD_SCALE, never below `floor`. */
export function loadCount(full: number, floor = 1): number {
  return Math.max(floor, Math.round(full * LOAD_SCALE));
}

/** A count as the suites print it: 1,000. */
export const shown = (count: number): string => count.toLocaleString('en-US');
