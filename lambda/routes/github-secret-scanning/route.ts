/** The declaration of POST /functions/v1/github-secret-scanning: dependency-free, read by the CDK app at synth. */
import { defineRoute } from '../../contract/routes';

export const route = defineRoute({
  name: 'github-secret-scanning',
  method: 'POST',
  caller: 'partner',
  input: 'body',
  summary: "GitHub secret scanning's partner endpoint: values found in public code, signed by GitHub; each value of a key acted on by its on_leak",
  operations: ['readValueLookups', 'readKey', 'recordLeak'],
  ports: ['keys', 'lookups', 'githubKeys'],
  settings: ['KEY_TABLE_NAME', 'AUDIT_TABLE_NAME', 'GITHUB_SECRET_SCANNING_KEYS', 'GITHUB_SECRET_SCANNING_KEYS_URL'],
  // GitHub sends a report per push; a burst of pushes stays well under this.
  methodThrottle: { rateLimit: 10, burstLimit: 20 },
  // 1,000 tokens with their URLs are about 300 KB.
  maxBodyBytes: 1024 * 1024,
});
