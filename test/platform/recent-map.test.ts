/** RecentMap: the bound every per-process memory uses (ended windows, seen lookups, guess counters at their limit). */
import { RecentMap } from '../../lambda/platform/recent-map';

describe('RecentMap', () => {
  it('past its capacity drops the entry set longest ago, counting a set again as new', () => {
    const map = new RecentMap<string, number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.set('a', 10); // a is the newest now: b is the oldest
    map.set('d', 4);
    expect(['a', 'b', 'c', 'd'].map((key) => map.get(key))).toEqual([10, undefined, 3, 4]);
    expect([map.has('b'), map.has('c')]).toEqual([false, true]);
  });

  it('delete and clear forget entries', () => {
    const map = new RecentMap<string, true>(2);
    map.set('x', true);
    map.set('y', true);
    map.delete('x');
    map.set('z', true); // room was made by the delete: y stays
    expect([map.has('x'), map.has('y'), map.has('z')]).toEqual([false, true, true]);
    map.clear();
    expect([map.has('y'), map.has('z')]).toEqual([false, false]);
  });
});
