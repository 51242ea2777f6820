/** The declaration of GET /functions/v1/list-identities: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { LIST_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'list-identities',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: "the team's identities, paged, or the one with an external id",
  operations: [...AUTHENTICATED, 'listIdentities', 'readIdentity'],
  ports: [...MANAGING, 'identities'],
  settings: LIST_SETTINGS,
});
