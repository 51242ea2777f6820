/**
 * The verify endpoint's guess counter: failed verifications of unknown
 * values by one source (an IPv4 address or an IPv6 /64) in one minute,
 * `IPRATE#<source>` / `<minutes since the epoch>`, removed by TTL.
 */
import { NUMBER, defineEntity, type EntityAccess, type ItemOf, STRING } from './entity';

const ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['ip-rate'], n: NUMBER, ttl: NUMBER } as const;

/** A guess counter item, as its attributes declare it. */
export type GuessCounterItem = ItemOf<typeof ATTRIBUTES>;

export const GUESS_COUNTER = /* @__PURE__ */ defineEntity<GuessCounterItem>()({
  name: 'guess counter',
  table: 'key',
  key: (source: string, minute: number) => ({ pk: `IPRATE#${source}`, sk: String(minute) }),
  attributes: ATTRIBUTES,
});

/** The `entity` attribute a counter is written with. */
export const GUESS_COUNTER_ENTITY: GuessCounterItem['entity'] = 'ip-rate';

/** The access patterns on guess counters: read with the value lookup, counted on a miss. */
export const GUESS_COUNTER_ACCESS = {
  readValueLookupAndGuessCounter: ['BatchGetItem'],
  countGuess: ['UpdateItem'],
} as const satisfies EntityAccess;
