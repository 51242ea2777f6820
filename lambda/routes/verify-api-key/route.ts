/** The declaration of POST /functions/v1/verify-api-key: dependency-free, read by the CDK app at synth. */
import { VERIFYING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';

export const route = defineRoute({
  name: 'verify-api-key',
  method: 'POST',
  caller: 'public',
  input: 'body',
  preflight: true,
  summary: 'checks a presented key value (OPTIONS: its CORS preflight)',
  // readIdentity: a valid key's identity, answered beside it.
  // admitMeteredUse: a key or identity with named limits or credits (docs/limits.md).
  // countVerifications: the analytics' counts, written in batches (docs/analytics.md).
  operations: ['readValueLookupAndGuessCounter', 'recordUse', 'countGuess', 'readIdentity', 'admitMeteredUse', 'admitSharedMeteredUse', 'countVerifications'],
  ports: [...VERIFYING, 'identities', 'meters', 'counts'],
  settings: ['KEY_TABLE_NAME', 'VERIFY_GUESS_LIMIT_PER_MINUTE'],
});
