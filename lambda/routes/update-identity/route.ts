/** The declaration of PATCH /functions/v1/update-identity: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'update-identity',
  method: 'PATCH',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: "changes an identity's external id or metadata",
  operations: [...AUTHENTICATED, 'readIdentity', 'changeIdentity'],
  ports: [...MANAGING, 'identities'],
  settings: [...MANAGEMENT_SETTINGS],
});
