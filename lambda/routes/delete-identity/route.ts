/** The declaration of DELETE /functions/v1/delete-identity: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'delete-identity',
  method: 'DELETE',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'removes an identity',
  // detach_keys: the identity's keys found, and each updated as a key update would.
  operations: [...AUTHENTICATED, 'readIdentity', 'deleteIdentity', 'listIdentityKeys', 'readKey', 'readUsage', 'updateKey'],
  ports: [...MANAGING, 'identities'],
  settings: [...MANAGEMENT_SETTINGS],
});
