/**
 * Where the partner endpoint finds GitHub's public keys: the document pinned
 * in `GITHUB_SECRET_SCANNING_KEYS`, else GitHub's endpoint (or
 * `GITHUB_SECRET_SCANNING_KEYS_URL`), fetched when needed. The local
 * runtime never fetches: it pins the document or has no key at all.
 */
import { optionalSetting, type Environment } from '../platform/environment';
import { GITHUB_SECRET_SCANNING_KEYS_URL, fetchedKeySource, pinnedKeySource, type GithubKeySource } from '../domain/github-signatures';

/** No published key: every report is refused (401). */
export const NO_GITHUB_KEYS: GithubKeySource = { keyFor: async () => undefined };

/** How long a fetch of the keys document may take. */
const FETCH_TIMEOUT_MS = 5_000;

/** The keys of the function's environment. */
export function githubKeysFromEnvironment(env?: Environment): GithubKeySource {
  const pinned = optionalSetting('GITHUB_SECRET_SCANNING_KEYS', env);
  if (pinned !== undefined) return pinnedKeySource(pinned);
  const url = optionalSetting('GITHUB_SECRET_SCANNING_KEYS_URL', env) ?? GITHUB_SECRET_SCANNING_KEYS_URL;
  return fetchedKeySource(url, (target) => fetch(target, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }));
}

/** The local runtime's keys: the pinned document, or none (nothing is ever fetched from a laptop). */
export function localGithubKeys(env?: Environment): GithubKeySource {
  const pinned = optionalSetting('GITHUB_SECRET_SCANNING_KEYS', env);
  return pinned === undefined ? NO_GITHUB_KEYS : pinnedKeySource(pinned);
}
