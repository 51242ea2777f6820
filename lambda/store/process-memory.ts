import type { EndedWindows } from '../domain/ended-windows';
import type { RecentMap } from '../platform/recent-map';
import type { SeenLookups } from './seen-lookups';

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
  reset(): void;
}
