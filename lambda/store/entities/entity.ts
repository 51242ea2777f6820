/**
 * A stored shape declared as data, in the ElectroDB style: each entity names
 * its attributes and their kinds once, the compiler checks the declaration
 * against the entity's type (every attribute, the right kind, optional where
 * the type says so), and every read checks the item against it before
 * handing it on as that type. No store casts what it reads.
 *
 * A read that meets an item of the wrong shape throws an Error (an internal
 * error, naming the entity and the attribute, never a value).
 * Attributes the declaration does not name pass through unchecked (the
 * early-write token, attributes of a newer version).
 *
 * Deliberately small: the checks run on every verification, and every
 * function bundles this file.
 */
import type { PositionShape } from '../../platform/cursor';
import type { StoreOperation } from '../../contract/store-operations';

/** How one attribute is stored. */
export type Kind = 'string' | 'number' | 'boolean' | 'strings' | 'counts' | 'string|null' | 'number|null';

// The kinds by name, so a declaration reads as words and a minified bundle holds each word once.
export const STRING = 'string';
export const NUMBER = 'number';
export const BOOLEAN = 'boolean';
export const STRINGS = 'strings';
export const COUNTS = 'counts';
export const STRING_OR_NULL = 'string|null';
export const NUMBER_OR_NULL = 'number|null';
export const OPTIONAL_STRING = 'string?';
export const OPTIONAL_NUMBER = 'number?';
export const OPTIONAL_STRING_OR_NULL = 'string|null?';
export const OPTIONAL_STRINGS = 'strings?';

/** An attribute's declaration: its kind (`?` when it may be absent), or the strings it may hold. */
type Declared = Kind | `${Kind}?` | readonly string[];

type KindOf<V> = [V] extends [boolean]
  ? 'boolean'
  : [V] extends [number]
    ? 'number'
    : [V] extends [readonly string[]]
      ? 'strings'
      : [V] extends [Record<string, number>]
        ? 'counts'
        : [V] extends [number | null]
          ? 'number|null'
          : [V] extends [string | null]
            ? null extends V
              ? 'string|null'
              : string extends V
                ? 'string'
                : readonly V[]
            : never;

/** The named (not index-signature) attributes of `T`. */
type NamedKeys<T> = keyof { [K in keyof T as object extends Record<K, 1> ? never : K]: 1 };

/** The declaration an entity of type `T` must give: every named attribute, with its kind. */
export type Attributes<T> = {
  readonly [K in NamedKeys<T>]-?: undefined extends T[K]
    ? KindOf<Exclude<T[K], undefined>> extends Kind
      ? `${KindOf<Exclude<T[K], undefined>>}?`
      : never
    : KindOf<T[K]>;
};

/** Whether `value` is of `kind` (the kinds string, number and boolean are their own `typeof`). */
function isOfKind(value: unknown, kind: string): boolean {
  if (kind === STRINGS) return Array.isArray(value) && value.every((entry) => typeof entry === STRING);
  if (kind === COUNTS) return typeof value === 'object' && !!value && !Array.isArray(value) && Object.values(value).every((count) => typeof count === NUMBER);
  if (kind === STRING_OR_NULL) return value === null || typeof value === STRING;
  if (kind === NUMBER_OR_NULL) return value === null || typeof value === NUMBER;
  return typeof value === kind;
}

export interface Entity<T> {
  /** The item as `T` (undefined when there is none); throws when it is not the declared shape. */
  read(item: Record<string, unknown> | undefined): T | undefined;
  /** Every item as `T`. */
  readAll(items: readonly Record<string, unknown>[] | undefined): T[];
}

/** What an entity declares beyond its attributes. */
export interface EntityOptions<T> {
  /** The kind of every further attribute whose name matches `pattern` (the day counts of a month item). */
  readonly rest?: { pattern: RegExp; kind: Kind };
  /**
   * Attributes added after items were first written: the value an item
   * written before them reads as (the item is not rewritten).
   */
  readonly defaults?: { readonly [K in keyof T]?: (item: Record<string, unknown>) => T[K] };
}

/** The stored type of one declared kind. */
type Plain<D> = D extends 'string'
  ? string
  : D extends 'number'
    ? number
    : D extends 'boolean'
      ? boolean
      : D extends 'strings'
        ? string[]
        : D extends 'counts'
          ? Record<string, number>
          : D extends 'string|null'
            ? string | null
            : D extends 'number|null'
              ? number | null
              : D extends readonly (infer S)[]
                ? S
                : never;

/**
 * The item type a declaration describes: an entity whose rules live in no
 * lower layer (a counter, a claim) takes its type from its attributes
 * rather than writing it twice.
 */
export type ItemOf<A> = { -readonly [K in keyof A as A[K] extends `${string}?` ? never : K]: Plain<A[K]> } & {
  -readonly [K in keyof A as A[K] extends `${string}?` ? K : never]?: A[K] extends `${infer D}?` ? Plain<D> : never;
};

/** Declares an entity's reader (defineEntity adds its table and key). */
export function entity<T>(name: string, attributes: Attributes<T> & Readonly<Record<string, Declared>>, options: EntityOptions<T> = {}): Entity<T> {
  const { rest } = options;
  const defaults = Object.entries(options.defaults ?? {}) as [string, (item: Record<string, unknown>) => unknown][];
  const checks = Object.entries<Declared>(attributes).map(([attribute, declared]): [string, (value: unknown) => boolean, boolean] =>
    typeof declared === 'string'
      ? [attribute, (value) => isOfKind(value, declared.replace('?', '')), declared.endsWith('?')]
      : [attribute, (value) => typeof value === 'string' && declared.includes(value), false],
  );

  /** The first attribute of `item` that breaks the declaration, or undefined. */
  const brokenAttribute = (item: Record<string, unknown>): string | undefined => {
    for (const [attribute, check, optional] of checks) if (item[attribute] === undefined ? !optional : !check(item[attribute])) return attribute;
    if (rest) for (const attribute in item) if (rest.pattern.test(attribute) && !isOfKind(item[attribute], rest.kind)) return attribute;
  };
  const conforms = (item: Record<string, unknown>): item is Record<string, unknown> & T => !brokenAttribute(item);
  const withDefaults = (item: Record<string, unknown>): Record<string, unknown> => {
    const missing = defaults.filter(([attribute]) => item[attribute] === undefined);
    return missing.length === 0 ? item : { ...item, ...Object.fromEntries(missing.map(([attribute, of]) => [attribute, of(item)])) };
  };
  const must = (stored: Record<string, unknown>): T => {
    const item = withDefaults(stored);
    if (conforms(item)) return item;
    throw new Error(`A stored ${name} item has no valid ${brokenAttribute(item)} attribute`);
  };
  return {
    read: (item) => (item === undefined ? undefined : must(item)),
    readAll: (items) => (items ?? []).map(must),
  };
}

/** An item's primary key in either table (a type, not an interface: it is a record of strings). */
export type ItemKey = { pk: string; sk: string };

/** A key attribute pair on the team index (`gsi1pk`, `gsi1sk`). */
export type IndexKey = { gsi1pk: string; gsi1sk: string };

/** Which table an entity's items live in. */
export type EntityTable = 'key' | 'audit';

/** What one entity declares: its name and table, how its item key is made, its attributes (and their reading options). */
export interface EntityDeclaration<T, K extends readonly unknown[]> extends EntityOptions<T> {
  readonly name: string;
  readonly table: EntityTable;
  /** The item key from the entity's own identifiers: the one spelling of its access by key. */
  readonly key: (...parts: K) => ItemKey;
  readonly attributes: Attributes<T> & Readonly<Record<string, Declared>>;
}

/** A declared entity: its reader and its key. */
export type DeclaredEntity<T, K extends readonly unknown[]> = Entity<T> & Pick<EntityDeclaration<T, K>, 'name' | 'table' | 'key'>;

/**
 * Declares a stored entity in one place (store/entities/<entity>.ts): the
 * compiler holds `attributes` to `T`, and every read checks an item against
 * them. Called as `defineEntity<Item>()({...})` behind a `@__PURE__` annotation, so the key's
 * parts are inferred; with its attributes written out (no `...spread`, which
 * esbuild must keep for its getters) an entity a function never reads is
 * dropped from its bundle.
 */
export function defineEntity<T>() {
  return <K extends readonly unknown[], A extends EntityDeclaration<T, K>['attributes']>(
    // No attribute the type does not have: the declaration and `T` describe the same item.
    declaration: EntityDeclaration<T, K> & { readonly attributes: A & { readonly [X in Exclude<keyof A, keyof T>]: never } },
  ): DeclaredEntity<T, K> => ({
    ...entity<T>(declaration.name, declaration.attributes, declaration),
    name: declaration.name,
    table: declaration.table,
    key: declaration.key,
  });
}

// A page position is derived from the same key builders: a hole stands where any id or time may be.
const HOLES: Readonly<Record<string, string>> = {
  '⟨id⟩': '[0-9A-HJKMNP-TV-Z]{26}',
  '⟨time⟩': '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z',
};
/** Any ULID (a key, endpoint, delivery or audit event id), in a page position. */
export const ANY_ID = '⟨id⟩';
/** Any event time as `Date#toISOString` writes it, in a page position. */
export const ANY_TIME = '⟨time⟩';
const HOLE = /⟨(?:id|time)⟩/g;

/**
 * The position shape of a page whose last item has key `key` (built by the
 * entity's own key builders with ANY_ID and ANY_TIME where the page may hold
 * any): an attribute without a hole is a literal, one with holes a pattern,
 * and two attributes built alike must be equal.
 */
export function positionOf(key: Readonly<Record<string, string>>): PositionShape {
  const entries = Object.entries(key);
  const hasHole = (value: string) => value.includes('⟨');
  const patternOf = (value: string) => new RegExp(`^${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(HOLE, (hole) => HOLES[hole])}$`);
  const attributes = Object.fromEntries(entries.map(([name, value]) => [name, hasHole(value) ? patternOf(value) : value]));
  const equal = entries.flatMap(([a, value], at) =>
    hasHole(value) ? entries.slice(at + 1).flatMap(([b, other]) => (other === value ? [[a, b] as const] : [])) : [],
  );
  return equal.length > 0 ? { attributes, equal } : { attributes };
}

/** A DynamoDB request an access pattern sends to an entity's items; `Query byTeam` on the team index. */
export type EntityRequest = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query' | 'Query byTeam';

/**
 * An entity's named access patterns: each declared store operation that
 * reads or writes its items (contract/store-operations.ts), and the requests
 * it sends to them. test/architecture/entities.test.ts holds the contract's
 * operations to the union of these.
 */
export type EntityAccess = Readonly<Partial<Record<StoreOperation, readonly EntityRequest[]>>>;
