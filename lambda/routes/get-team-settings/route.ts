/** The declaration of GET /functions/v1/get-team-settings: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-team-settings',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: "the team's settings (its unused-key policy)",
  operations: [...AUTHENTICATED, 'readTeam'],
  ports: [...MANAGING, 'teams'],
  settings: MANAGEMENT_SETTINGS,
});
