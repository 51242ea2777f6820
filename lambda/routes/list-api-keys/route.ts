/** The declaration of GET /functions/v1/list-api-keys: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { LIST_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'list-api-keys',
  method: 'GET',
  caller: 'manager',
  input: 'query',
  summary: "the team's keys, newest first, paged",
  operations: [...AUTHENTICATED, 'listTeamKeys', 'readUsageBatch'],
  ports: MANAGING,
  settings: LIST_SETTINGS,
});
