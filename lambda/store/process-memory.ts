import type { EndedWindows } from '../domain/ended-windows';
import type { RecentMap } from '../platform/recent-map';
import type { SeenLookups } from './seen-lookups';

/** What a read of a key's usage item, or of an identity's meter, asks of the metered leases of the process. */
export interface MeteredSettler {
  /** Whether a lease holds uses or capacity of the key (a read made before may be stale). */
  holds(keyId: string): boolean;
  /** Writes the uses a lease admitted of the key, and what its holding still holds. */
  settle(keyId: string): Promise<void>;
  /** The same for every lease holding part of the identity's meter (of any identity's when none is named). */
  settleIdentity(identityId?: string): Promise<void>;
}

/**
 * What this process remembers between requests, to save work: never an
 * answer, only a prediction or a shortcut the next read confirms. Built per
 * `createServices` and resettable (tests, a local restart).
 */
export interface ProcessMemory {
  /** Value lookups read lately: the early recording write's predictions (verification/early-write.ts). */
  readonly seenLookups: SeenLookups;
  /** Guess counters (source and minute) seen at the limit: no early write for them this minute. */
  readonly overGuessLimit: RecentMap<string, true>;
  /** Ended rate windows' counts, and the usage items seen tidy (domain/ended-windows.ts). */
  readonly endedWindows: EndedWindows;
  /** This process's metered leases (store/metered-use.ts): what they hold of a key is written before a read of its usage item or its identity's meter. */
  readonly meteredSettlers: Set<MeteredSettler>;
  /**
   * Use-driven graces (verification/grace.ts), per `<key id>#<generation>`:
   * the old value's latest use this process knows of (epoch ms; `ENDED` once
   * a read found its idle end passed), and the transitions whose new value's
   * first use this process has marked (or found marked).
   */
  readonly oldValueUses: RecentMap<string, number>;
  readonly newValueMarked: RecentMap<string, true>;
  /** Per transition: the old value's caller networks this process tracks (verification/grace.ts `trackedSource`). */
  readonly oldValueSources: RecentMap<string, Set<string>>;
  reset(): void;
}
