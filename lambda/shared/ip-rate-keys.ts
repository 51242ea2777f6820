/**
 * Item keys of the verify endpoint's per-source guess counters, kept in the
 * key table next to the entities of `table-schema.ts` (to be folded into its
 * `keyTableKeys` by the table-schema owner).
 *
 * | entity  | pk                 | sk                 | notes                                   |
 * |---------|--------------------|--------------------|-----------------------------------------|
 * | ip-rate | `IPRATE#<source>`  | `<minute index>`   | failed verifications; TTL after 2 min    |
 *
 * `<source>` is an IPv4 address or an IPv6 /64 (`sourceBucketOf`), and the
 * minute index is minutes since the epoch.
 */
export const IP_RATE_ENTITY = 'ip-rate';

export const ipRateKeys = {
  /** The counter of one source in one minute. */
  counter: (source: string, minute: number) => ({ pk: `IPRATE#${source}`, sk: String(minute) }),
} as const;
