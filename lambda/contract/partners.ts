/**
 * The partner programmes the service takes part in (docs/secret-scanning.md).
 * Dependency-free: the CDK app, the handlers and the docs' tests read it.
 */

/** GitHub's public-keys document for secret-scanning partners. */
export const GITHUB_SECRET_SCANNING_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';
