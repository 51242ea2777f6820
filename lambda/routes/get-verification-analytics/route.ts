/** The declaration of GET /functions/v1/get-verification-analytics: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-verification-analytics',
  method: 'GET',
  caller: 'manager',
  input: 'query',
  repeatable: ['group_by'],
  summary: "a team's verification counts by minute, hour or day, by outcome, scope and key",
  // readTargetKey, readKey: a key named is the team's (a deleted one through its tombstone); readIdentity: an identity named is.
  // countVerifications (in AUTHENTICATED): counts this process holds are also written before the read.
  operations: [...AUTHENTICATED, 'readTargetKey', 'readKey', 'readIdentity', 'readVerificationCounts'],
  ports: [...MANAGING, 'identities', 'analytics'],
  settings: MANAGEMENT_SETTINGS,
});
