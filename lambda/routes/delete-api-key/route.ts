/** The declaration of DELETE /functions/v1/delete-api-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED, TARGET_KEY } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'delete-api-key',
  method: 'DELETE',
  caller: 'manager',
  input: 'body',
  schedules: 'delete',
  summary: 'revokes every value of a key and keeps a tombstone',
  operations: [...AUTHENTICATED, ...TARGET_KEY, 'listTeamKeys', 'tombstoneKey'],
  ports: [...MANAGING, 'scheduler', 'expiry'],
  throttle: 'write',
  settings: MANAGEMENT_SETTINGS,
});
