/**
 * Reading keys: one key by id, and a team's keys newest first, filtered and
 * paged. The same rules as every management route: another team's key is
 * 404, a `test` caller sees `test` keys only. Both show a deleted key's
 * tombstone while it lasts (the list when asked for `state=deleted`).
 */
import { assertEnvironmentReach, assertOwnTeam, notFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import { entityTagOf, type TaggedKey } from '../domain/revision';
import { ttlExpired } from '../domain/key-lifetime';
import { transitionViewOf } from '../domain/transition-activity';
import { lastValidUseOf } from '../domain/unused-keys';
import { keyResource, keyStateOf, withUseDrivenEnd, type KeyResource } from '../domain/key-view';
import type { Environment, KeyType } from '../domain/key-values';
import type { KeyItem } from '../domain/model';
import type { ClockPort, KeysPort, SettingsPort, UsagePort } from '../store/ports';
import { teamKeysPage } from '../store/entities/key';
import { MS_PER_DAY } from '../platform/clock';
import type { LastUse, UsageSummary } from '../domain/usage-figures';

/** What reading keys takes: the key and usage stores, the clock, the cursor signing key. */
export type ReadKeysPorts = KeysPort & UsagePort & ClockPort & SettingsPort<'cursorSigningKey'>;

/** A live key of the caller's team that the caller may reach, or 404 / 403. */
export async function reachableKey(services: KeysPort, caller: VerifiedKey, keyId: string, now: Date): Promise<KeyItem> {
  const key = await services.keys.getLiveKey(keyId, caller.team_id, now);
  if (!key) throw notFound(keyId);
  assertEnvironmentReach(caller, key.environment);
  return key;
}

/**
 * The key item of the caller's team, live or its tombstone while it lasts
 * (90 days), that the caller may reach (else 403); undefined when there is
 * none (never issued, or the tombstone is gone); 404 for another team's key.
 * The routes that read a deleted key's data (get, usage, audit trail).
 */
export async function keptKey(services: KeysPort, caller: VerifiedKey, keyId: string, now: Date): Promise<KeyItem | undefined> {
  const key = await services.keys.getKey(keyId);
  if (key !== undefined && key.team_id !== caller.team_id) throw notFound(keyId);
  if (key === undefined || key.entity !== 'key' || ttlExpired(key, now)) return undefined;
  assertEnvironmentReach(caller, key.environment);
  return key;
}

/**
 * One key of the caller's team, its tombstone included while it lasts (90
 * days: `state` "deleted" and `deleted_at`, as the list shows it), so a
 * deleted key's page can still be read beside its usage and audit trail.
 */
export async function getKey(services: ReadKeysPorts, caller: VerifiedKey, input: { key_id: string }): Promise<TaggedKey> {
  const now = services.clock.now();
  const key = await keptKey(services, caller, input.key_id, now);
  if (!key) throw notFound(input.key_id);
  const usage = await services.usage.readUsage(key.id, now);
  const resource = keyResource(key, usage, now);
  // While the old value works: who still sends it, and the current value's last use (domain/transition-activity.ts).
  const transition = resource.state === 'in_transition' ? transitionViewOf(withUseDrivenEnd(key, usage), usage.transition_entries, now) : {};
  return { resource: { ...resource, ...transition }, entityTag: entityTagOf(key) };
}

/** The last uses of the keys read so far (a key without a usage item: read, and absent from `uses`). */
interface LastUsesRead {
  readonly uses: Map<string, LastUse & Pick<UsageSummary, 'credits'>>;
  readonly read: Set<string>;
}

/** The last uses of `keys` not read yet, added to `known`: one batch read (none when every one was read). */
async function readLastUses(services: Pick<ReadKeysPorts, 'usage'>, keys: readonly KeyItem[], known: LastUsesRead): Promise<void> {
  const ids = keys.map((key) => key.id).filter((id) => !known.read.has(id));
  if (ids.length === 0) return;
  for (const [id, use] of await services.usage.lastUses(ids)) known.uses.set(id, use);
  for (const id of ids) known.read.add(id);
}

/**
 * `keys` less those with a VALID use in the last `days` days (a key never
 * used counts from its creation); all of them when `days` is undefined. One
 * batch read of the candidates' usage items (at most INDEX_PAGE), kept in
 * `known` for the page's answer.
 */
async function unusedOnly(
  services: Pick<ReadKeysPorts, 'usage'>,
  days: number | undefined,
  keys: KeyItem[],
  now: Date,
  known: LastUsesRead,
): Promise<Set<KeyItem>> {
  if (days === undefined || keys.length === 0) return new Set(keys);
  const since = now.getTime() - days * MS_PER_DAY;
  await readLastUses(services, keys, known);
  return new Set(keys.filter((key) => lastValidUseOf(key, known.uses.get(key.id)) < since));
}

/** A page of a team's keys, filtered. */
export interface ListKeysInput {
  team_id: string;
  environment?: Environment;
  type?: KeyType;
  state?: string;
  /** Only the keys that name this identity. */
  identity_id?: string;
  /** Only the keys with no VALID use in this many days (never used: created before then). */
  unused_for_days?: number;
  /** Only the keys that expire before this instant (ISO). */
  expires_before?: string;
  limit: number;
  cursor?: string;
}

export interface KeyPage {
  data: KeyResource[];
  next_cursor: string | null;
}

/** Index attributes of a key item: the position a cursor names. */
const POSITION = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;
/** Items read per index page while filling a page of results. */
const INDEX_PAGE = 100;
/**
 * Index pages one request reads at most (1,000 keys examined): a filter that
 * matches few of a large team's keys answers a short page, even an empty one,
 * with a cursor to go on from, instead of reading the whole team at once
 * (bounded time and read units per request).
 */
export const MAX_INDEX_PAGES = 10;

export async function listKeys(services: ReadKeysPorts, caller: VerifiedKey, input: ListKeysInput): Promise<KeyPage> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot list keys of another team.');
  // A test key sees test keys only: asking for live keys is refused, not answered empty.
  const environment = input.environment ?? (caller.environment === 'test' ? 'test' : undefined);
  if (environment !== undefined) assertEnvironmentReach(caller, environment);
  let startAfter = input.cursor ? decodeCursor(input.cursor, teamKeysPage(caller.team_id), services.settings.cursorSigningKey) : undefined;
  const now = services.clock.now();
  const wanted = (key: KeyItem) => {
    if (key.entity !== 'key' || ttlExpired(key, now)) return false;
    if (environment !== undefined && key.environment !== environment) return false;
    if (input.type !== undefined && key.type !== input.type) return false;
    if (input.identity_id !== undefined && key.identity_id !== input.identity_id) return false;
    if (input.expires_before !== undefined && (key.expires_at === null || Date.parse(key.expires_at) >= Date.parse(input.expires_before))) return false;
    const state = keyStateOf(key, now);
    return input.state === undefined ? state !== 'deleted' : state === input.state;
  };

  const found: KeyItem[] = [];
  const known: LastUsesRead = { uses: new Map(), read: new Set() };
  let more = true;
  for (let reads = 0; found.length < input.limit && more && reads < MAX_INDEX_PAGES; reads++) {
    const page = await services.keys.teamKeysPage(caller.team_id, startAfter, INDEX_PAGE);
    const matching = await unusedOnly(services, input.unused_for_days, page.items.filter(wanted), now, known);
    let consumed = 0;
    for (const item of page.items) {
      consumed += 1;
      if (matching.has(item)) found.push(item);
      if (found.length === input.limit) break;
    }
    more = consumed < page.items.length || page.more;
    const last = page.items[consumed - 1];
    if (last) startAfter = Object.fromEntries(POSITION.map((name) => [name, String(last[name])]));
    if (page.items.length === 0) more = false;
  }

  // The unused filter read the found keys' usage already; otherwise one batch read now.
  await readLastUses(services, found, known);
  return {
    data: found.map((key) => keyResource(key, known.uses.get(key.id) ?? { last_used_at: null }, now)),
    // The last key examined, matched or not: a page cut short by MAX_INDEX_PAGES goes on from there.
    next_cursor: more && startAfter ? encodeCursor(startAfter, services.settings.cursorSigningKey) : null,
  };
}
