/**
 * GitHub secret scanning's signatures (docs/secret-scanning.md): every
 * report GitHub sends a partner carries `Github-Public-Key-Identifier` and
 * `Github-Public-Key-Signature`, a base64 DER ECDSA P-256 SHA-256 signature
 * of the raw body bytes by the key of that identifier, one of GitHub's
 * published keys (`{"public_keys":[{"key_identifier","key","is_current"}]}`).
 *
 * Keys come from that document: pinned in `GITHUB_SECRET_SCANNING_KEYS`
 * (the local runtime and the tests: no network), or fetched from
 * `GITHUB_SECRET_SCANNING_KEYS_URL` (GitHub's endpoint by default), kept,
 * and fetched again when an identifier arrives that the kept document does
 * not name, at most once a minute (an unknown identifier costs a forger
 * nothing else).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export { GITHUB_SECRET_SCANNING_KEYS_URL } from '../contract/partners';
/** The shortest wait between two fetches of the document. */
export const REFETCH_INTERVAL_MS = 60_000;
/** The largest keys document read. */
const MAX_DOCUMENT_BYTES = 64 * 1024;

/** One published key. */
export interface GithubPublicKey {
  readonly key_identifier: string;
  /** PEM (`-----BEGIN PUBLIC KEY-----`). */
  readonly key: string;
  readonly is_current: boolean;
}

/** The keys of a document by identifier (P-256 keys only; anything else in it is left out). */
export function keysOfDocument(text: string): Map<string, KeyObject> {
  const parsed: unknown = JSON.parse(text);
  const listed = (parsed as { public_keys?: unknown })?.public_keys;
  if (!Array.isArray(listed)) throw new Error('The GitHub keys document has no public_keys array');
  const keys = new Map<string, KeyObject>();
  for (const entry of listed as Partial<GithubPublicKey>[]) {
    if (typeof entry?.key_identifier !== 'string' || typeof entry.key !== 'string') continue;
    try {
      const key = createPublicKey(entry.key);
      if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') keys.set(entry.key_identifier, key);
    } catch {
      // Not a key: skipped, as GitHub would never sign with it.
    }
  }
  return keys;
}

/** Where the keys come from: the key of an identifier, or undefined when no published key has it. */
export interface GithubKeySource {
  keyFor(identifier: string): Promise<KeyObject | undefined>;
}

/** A pinned document (`GITHUB_SECRET_SCANNING_KEYS`). */
export function pinnedKeySource(document: string): GithubKeySource {
  const keys = keysOfDocument(document);
  return { keyFor: async (identifier) => keys.get(identifier) };
}

/** How the document is fetched (global `fetch` in Lambda; a stub in tests). */
export type DocumentFetcher = (url: string) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

/** The document at `url`, kept and fetched again for an unknown identifier (at most every REFETCH_INTERVAL_MS). */
export function fetchedKeySource(url: string, fetcher: DocumentFetcher, now: () => number = Date.now): GithubKeySource {
  let keys: Map<string, KeyObject> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  const refresh = () =>
    (inFlight ??= (async () => {
      try {
        fetchedAt = now();
        const response = await fetcher(url);
        if (!response.ok) throw new Error(`GitHub keys document: HTTP ${response.status}`);
        const text = await response.text();
        if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) throw new Error('GitHub keys document: too large');
        keys = keysOfDocument(text);
      } finally {
        inFlight = undefined;
      }
    })());
  return {
    async keyFor(identifier) {
      if (keys?.has(identifier)) return keys.get(identifier);
      if (keys === undefined || now() - fetchedAt >= REFETCH_INTERVAL_MS) await refresh();
      return keys?.get(identifier);
    },
  };
}

/** Whether `signature` (base64 DER) signs `body` under `key`. A malformed signature is simply not valid. */
export function signatureHolds(body: Buffer, signature: string, key: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature) || signature.length > 200) return false;
  try {
    return verify('sha256', body, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
