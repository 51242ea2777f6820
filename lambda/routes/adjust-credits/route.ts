/** The declaration of POST /functions/v1/adjust-credits: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'adjust-credits',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: "adds credits to a key's or an identity's balance (a grant), or sets its refill allowance",
  operations: [...AUTHENTICATED, 'readIdempotencyRecord', 'readKey', 'readIdentity', 'adjustCredits'],
  ports: [...MANAGING, 'identities', 'credits', 'idempotency'],
  throttle: 'write',
  settings: MANAGEMENT_SETTINGS,
});
