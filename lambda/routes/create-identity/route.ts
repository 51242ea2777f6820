/** The declaration of POST /functions/v1/create-identity: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'create-identity',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'adds an identity (a customer whose keys will share limits and credits)',
  operations: [...AUTHENTICATED, 'createIdentity'],
  ports: [...MANAGING, 'identities'],
  throttle: 'write',
  settings: [...MANAGEMENT_SETTINGS],
});
