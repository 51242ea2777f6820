/**
 * The bundles' endpoint-cache map (lambda/adapters/endpoint-cache-lru.ts,
 * aliased for `mnemonist/lru-cache` by lib/house-function.ts) answers as
 * mnemonist's LRUCache does, for every method `@aws-sdk/endpoint-cache`
 * calls: a differential run of seeded random operations against both.
 */
import MnemonistLru from 'mnemonist/lru-cache';
import { EndpointCache } from '@aws-sdk/endpoint-cache';
import LruCache from '../../lambda/adapters/endpoint-cache-lru';
import { BUNDLE_ALIASES, ENDPOINT_CACHE_LRU } from '../../lib/house-function';
import { seeded } from '../support/seeded';

describe('the endpoint cache’s LRU map in the bundles', () => {
  it.each([1, 3, 10])('answers as mnemonist’s LRUCache over 5,000 seeded operations (capacity %i)', (capacity) => {
    const random = seeded(capacity * 7919);
    const ours = new LruCache<string, number>(capacity);
    const theirs = new MnemonistLru<string, number>(capacity);
    const answers: Array<[unknown, unknown]> = [];
    for (let i = 0; i < 5_000; i++) {
      const key = `k${Math.floor(random() * (capacity * 2 + 2))}`;
      const op = Math.floor(random() * 10);
      if (op < 3) answers.push([ours.get(key), theirs.get(key)]);
      else if (op < 6) {
        ours.set(key, i);
        theirs.set(key, i);
      } else if (op < 8) answers.push([ours.has(key), theirs.has(key)]);
      else if (op < 9) answers.push([ours.peek(key), theirs.peek(key)]);
      else if (random() < 0.05) {
        ours.clear();
        theirs.clear();
      }
      answers.push([ours.size, theirs.size]);
    }
    const differing = answers.filter(([a, b]) => a !== b);
    expect({ compared: answers.length, differing: differing.length }).toEqual({ compared: answers.length, differing: 0 });
    expect(answers.length).toBeGreaterThan(5_000);
  });

  it('is what the bundles get for mnemonist/lru-cache', () => {
    expect(BUNDLE_ALIASES['mnemonist/lru-cache']).toBe(ENDPOINT_CACHE_LRU);
    expect(require.resolve(`../../${ENDPOINT_CACHE_LRU}`)).toBe(require.resolve('../../lambda/adapters/endpoint-cache-lru'));
  });

  it('serves the SDK’s EndpointCache in its place (expiry, delete, clear, eviction)', () => {
    // The SDK's cache module loaded with this map for mnemonist's, as in a bundle.
    let Cache: typeof EndpointCache | undefined;
    jest.isolateModules(() => {
      // The SDK's CommonJS build requires the class itself; a bundle (its ES build) imports it as the default export.
      jest.doMock('mnemonist/lru-cache', () => LruCache);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module under the mock (isolateModules)
      Cache = (require('@aws-sdk/endpoint-cache') as { EndpointCache: typeof EndpointCache }).EndpointCache;
    });
    const cache = new (Cache as typeof EndpointCache)(2);
    expect((cache as unknown as { cache: unknown }).cache).toBeInstanceOf(LruCache);
    cache.set('a', [{ Address: 'a.example', CachePeriodInMinutes: 1 }]);
    expect(cache.getEndpoint('a')).toBe('a.example');
    cache.set('b', [{ Address: 'b.example', CachePeriodInMinutes: 0 }]);
    expect(cache.get('b')).toBeUndefined(); // expired at once
    cache.set('c', [{ Address: 'c.example', CachePeriodInMinutes: 1 }]);
    cache.set('d', [{ Address: 'd.example', CachePeriodInMinutes: 1 }]);
    expect(cache.has('a')).toBe(false); // evicted: capacity 2
    cache.delete('c');
    expect(cache.has('c')).toBe(false);
    cache.clear();
    expect(cache.getEndpoint('d')).toBeUndefined();
  });
});
