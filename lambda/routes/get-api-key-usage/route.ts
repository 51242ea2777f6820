/** The declaration of GET /functions/v1/get-api-key-usage: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED, TARGET_KEY } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-api-key-usage',
  method: 'GET',
  caller: 'manager',
  input: 'query',
  summary: "a key's usage, daily and per transition",
  operations: [...AUTHENTICATED, ...TARGET_KEY, 'readUsageHistory'],
  ports: MANAGING,
  settings: MANAGEMENT_SETTINGS,
});
