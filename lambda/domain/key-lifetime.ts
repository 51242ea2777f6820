/** When a stored key item stops counting: its TTL passed, or its transition ended. Pure. */
import { epochSeconds } from '../platform/clock';
import type { KeyItem } from './model';

/** Whether DynamoDB TTL has (logically) removed the item already. */
export function ttlExpired(item: { ttl?: number }, now: Date): boolean {
  return item.ttl !== undefined && item.ttl <= epochSeconds(now);
}

/** Whether the key is in a live transition at `now` (old value still valid). */
export function inLiveTransition(key: KeyItem, now: Date): boolean {
  return key.previous_hash !== undefined && key.transition_ends_at !== undefined && Date.parse(key.transition_ends_at) > now.getTime();
}

/** The hashes of the key's values that still authenticate at `now` (the current one, and the old one in a live transition): the lookups a change of its configuration rewrites. */
export function authenticatingHashes(key: KeyItem, now: Date): string[] {
  return [key.current_hash, inLiveTransition(key, now) ? key.previous_hash : undefined].filter((hash): hash is string => !!hash);
}
