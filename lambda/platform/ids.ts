import { decodeTime, monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** A new key id: a 26-character ULID in uppercase Crockford base32. */
export function newKeyId(): string {
  return nextUlid();
}

/** A new id for an audit event (also a ULID, so ids sort by time). */
export function newEventId(): string {
  return nextUlid();
}

/** When a key id was made (epoch ms, from its ULID's time part); undefined for an id that is not a ULID. */
export function keyIdTime(id: string): number | undefined {
  try {
    return decodeTime(id);
  } catch {
    return undefined;
  }
}

export const KEY_ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
