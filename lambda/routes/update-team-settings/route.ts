/** The declaration of PATCH /functions/v1/update-team-settings: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'update-team-settings',
  method: 'PATCH',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: "changes the team's settings (its unused-key policy)",
  operations: [...AUTHENTICATED, 'readTeam', 'changeTeamSettings'],
  ports: [...MANAGING, 'teams'],
  settings: MANAGEMENT_SETTINGS,
});
