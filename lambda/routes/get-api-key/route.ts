/** The declaration of GET /functions/v1/get-api-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED, TARGET_KEY } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-api-key',
  method: 'GET',
  caller: 'manager',
  input: 'query',
  summary: 'one key (never its value or hash)',
  operations: [...AUTHENTICATED, ...TARGET_KEY],
  ports: MANAGING,
  settings: MANAGEMENT_SETTINGS,
});
