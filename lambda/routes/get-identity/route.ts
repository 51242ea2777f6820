/** The declaration of GET /functions/v1/get-identity: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-identity',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: 'one identity of the team',
  operations: [...AUTHENTICATED, 'readIdentity'],
  ports: [...MANAGING, 'identities'],
  settings: MANAGEMENT_SETTINGS,
});
