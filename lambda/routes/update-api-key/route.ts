/** The declaration of PATCH /functions/v1/update-api-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED, TARGET_KEY } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'update-api-key',
  method: 'PATCH',
  caller: 'manager',
  input: 'body',
  summary: 'edits, disables or enables a key',
  operations: [...AUTHENTICATED, ...TARGET_KEY, 'listTeamKeys', 'updateKey'],
  ports: [...MANAGING, 'expiry'],
  schedules: 'create',
  settings: MANAGEMENT_SETTINGS,
});
