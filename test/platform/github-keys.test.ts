/**
 * GitHub's public keys as the partner function reads them in AWS: fetched
 * once, kept, fetched again only for an identifier the kept document does
 * not name and at most once a minute; a failed fetch is an error (the
 * endpoint answers 503, GitHub retries). The fetcher is a stub: no packet
 * leaves the machine.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { REFETCH_INTERVAL_MS, fetchedKeySource, keysOfDocument, signatureHolds } from '../../lambda/domain/github-signatures';

const pem = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const documentOf = (...ids: string[]) => JSON.stringify({ public_keys: ids.map((id) => ({ key_identifier: id, key: pem(), is_current: true })) });

describe('GitHub keys fetched from the published document', () => {
  it('fetches once, keeps the keys, refetches for an unknown identifier at most once a minute', async () => {
    let now = 0;
    let served = documentOf('a');
    const fetched: string[] = [];
    const source = fetchedKeySource(
      'https://keys.example/secret_scanning',
      async (url) => (fetched.push(url), { ok: true, status: 200, text: async () => served }),
      () => now,
    );
    expect(await source.keyFor('a')).toBeDefined();
    expect(await source.keyFor('a')).toBeDefined();
    served = documentOf('a', 'b');
    now += 1000;
    expect(await source.keyFor('b')).toBeUndefined(); // within the minute: not fetched again
    now += REFETCH_INTERVAL_MS;
    expect(await source.keyFor('b')).toBeDefined();
    expect(await source.keyFor('zzz')).toBeUndefined();
    expect(fetched).toEqual(['https://keys.example/secret_scanning', 'https://keys.example/secret_scanning']);
  });

  it('an HTTP error or a document that is not GitHub’s is an error, not an empty key set', async () => {
    const failing = fetchedKeySource(
      'https://keys.example/x',
      async () => ({ ok: false, status: 503, text: async () => '' }),
      () => 0,
    );
    await expect(failing.keyFor('a')).rejects.toThrow('HTTP 503');
    expect(() => keysOfDocument('{"keys":[]}')).toThrow('no public_keys array');
  });

  it('keeps P-256 keys only; a signature holds for its bytes only; a malformed signature simply does not hold', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const keys = keysOfDocument(
      JSON.stringify({
        public_keys: [
          { key_identifier: 'ec', key: publicKey.export({ type: 'spki', format: 'pem' }).toString(), is_current: true },
          { key_identifier: 'rsa', key: rsa, is_current: false },
          { key_identifier: 'junk', key: 'not a key', is_current: false },
        ],
      }),
    );
    expect([...keys.keys()]).toEqual(['ec']);
    const body = Buffer.from('[{"token":"x"}]');
    const signature = sign('sha256', body, { key: privateKey, dsaEncoding: 'der' }).toString('base64');
    const key = keys.get('ec');
    if (!key) throw new Error('no key');
    expect(signatureHolds(body, signature, key)).toBe(true);
    expect(signatureHolds(Buffer.from('[{"token":"y"}]'), signature, key)).toBe(false);
    expect(signatureHolds(body, '!!!', key)).toBe(false);
    expect(signatureHolds(body, Buffer.from('short').toString('base64'), key)).toBe(false);
  });
});
