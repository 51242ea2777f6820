/**
 * Entities declared as data (lambda/store/entities/): a read hands on an item
 * only when every declared attribute is there with its kind, names the first
 * attribute that is not (never its value), and the compiler holds each
 * declaration to its type.
 */
import { entity } from '../../lambda/store/entities/entity';
import { KEY, newKeyItem } from '../../lambda/store/entities/key';
import { USAGE, newUsageItem } from '../../lambda/store/entities/usage';
import { USAGE_MONTH } from '../../lambda/store/entities/usage-month';
import { VALUE_LOOKUP, valueLookupItem } from '../../lambda/store/entities/value-lookup';

interface Thing {
  pk: string;
  size: number;
  open: boolean;
  tags: string[];
  counts: Record<string, number>;
  until: string | null;
  colour: 'red' | 'blue';
  note?: string;
}

const THING_ATTRIBUTES = {
  pk: 'string',
  size: 'number',
  open: 'boolean',
  tags: 'strings',
  counts: 'counts',
  until: 'string|null',
  colour: ['red', 'blue'],
  note: 'string?',
} as const;
const THING = entity<Thing>('thing', THING_ATTRIBUTES);

/** An item as the document client returns it. */
const stored = (item: object): Record<string, unknown> => ({ ...item });

const good = (): Record<string, unknown> => ({ pk: 'T#1', size: 2, open: true, tags: ['a'], counts: { x: 1 }, until: null, colour: 'red' });

describe('entity reads', () => {
  it('hands on a conforming item as it is, absent optional attributes and unknown attributes included', () => {
    const item = { ...good(), early_token: 'abc' };
    expect(THING.read(item)).toBe(item);
    expect(THING.read({ ...good(), note: 'n', until: '2026-01-01T00:00:00.000Z' })?.note).toBe('n');
    expect(THING.read(undefined)).toBeUndefined();
    expect(THING.readAll(undefined)).toEqual([]);
  });

  it.each([
    ['pk', undefined],
    ['pk', 7],
    ['size', '2'],
    ['open', 'true'],
    ['tags', 'a'],
    ['tags', [1]],
    ['counts', { x: '1' }],
    ['counts', [1]],
    ['until', 5],
    ['colour', 'green'],
    ['note', 3],
  ])('refuses an item whose %s is %p, naming the attribute and not the value', (attribute, value) => {
    const item = { ...good(), [attribute]: value };
    if (value === undefined) delete item[attribute];
    expect(() => THING.read(item)).toThrow(new RegExp(`^A stored thing item has no valid ${attribute} attribute$`));
    expect(() => THING.readAll([good(), item])).toThrow(new RegExp(`^A stored thing item has no valid ${attribute} attribute$`));
  });

  it('checks the further attributes a pattern names (a month item’s day counts)', () => {
    const month = { pk: 'KEY#1', sk: 'USAGE#2026-01', entity: 'usage-month', key_id: '1', month: '2026-01', total: 3, d01: 1, d02: 2 };
    expect(USAGE_MONTH.read(month)).toBe(month);
    expect(() => USAGE_MONTH.read({ ...month, d03: 'x' })).toThrow('A stored usage month item has no valid d03 attribute');
  });

  const KEY_SPEC = {
    team_id: 'team-a',
    name: 'n',
    type: 'sk' as 'pk' | 'sk',
    environment: 'live' as const,
    scopes: ['keys.read'],
    domains: [],
    ip_whitelist: [],
    rate_limit: 10,
    expires_at: null,
    created_by: 'x',
    description: '',
    on_leak: 'notify' as const,
  };

  it('reads the items the domain builds (the declarations match what is written)', () => {
    const key = newKeyItem('01J0000000000000000000000A', KEY_SPEC, 'sk_live_0000000000000000000000000000000000000000', 'hash', new Date(0));
    expect(KEY.read(stored(key))).toEqual(key);
    const lookup = valueLookupItem(key, 'hash', 'previous', 1, { endsAt: '2026-01-01T00:00:00.000Z', generation: 2 });
    expect(VALUE_LOOKUP.read(stored(lookup))).toEqual(lookup);
    const usage = newUsageItem(key.id, key.team_id);
    expect(USAGE.read(stored(usage))).toEqual(usage);
    const tombstone = { ...stored(key), state: 'deleted', is_active: false, deleted_at: '2026-01-01T00:00:00.000Z', deleted_by: 'x', deletion_reason: null };
    expect(KEY.read(tombstone)).toBe(tombstone);
    expect(() => KEY.read({ ...stored(key), state: 'gone' })).toThrow('A stored key item has no valid state attribute');
  });

  it("reads an item written before an attribute existed with the attribute's default, and refuses a wrong stored value", () => {
    const older: Record<string, unknown> = stored(newKeyItem('01J0000000000000000000000B', { ...KEY_SPEC, type: 'sk' }, 'v', 'hash', new Date(0)));
    delete older.on_leak;
    expect(KEY.read(older)?.on_leak).toBe('disable');
    expect(KEY.read({ ...older, type: 'pk' })?.on_leak).toBe('notify');
    expect(KEY.read({ ...older, on_leak: 'notify' })?.on_leak).toBe('notify');
    expect(() => KEY.read({ ...older, on_leak: 'ignore' })).toThrow('A stored key item has no valid on_leak attribute');
  });

  it('is held to its type by the compiler', () => {
    // @ts-expect-error an attribute of the type is missing from the declaration
    entity<Thing>('thing', { pk: 'string', size: 'number', open: 'boolean', tags: 'strings', counts: 'counts', until: 'string|null', colour: ['red'] });
    // The full declaration with one attribute changed: the compiler refuses each.
    // @ts-expect-error a number declared as a string
    entity<Thing>('thing', { ...THING_ATTRIBUTES, size: 'string' });
    // @ts-expect-error an optional attribute declared as required
    entity<Thing>('thing', { ...THING_ATTRIBUTES, note: 'string' });
    // @ts-expect-error a required attribute declared as optional
    entity<Thing>('thing', { ...THING_ATTRIBUTES, pk: 'string?' });
    entity<Thing>('thing', THING_ATTRIBUTES);
    expect(THING.read(good())).toBeDefined();
  });
});
