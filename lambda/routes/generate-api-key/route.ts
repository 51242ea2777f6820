/** The declaration of POST /functions/v1/generate-api-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'generate-api-key',
  method: 'POST',
  caller: 'manager',
  input: 'body',
  summary: 'creates a key and returns its value once',
  operations: [...AUTHENTICATED, 'readIdempotencyRecord', 'createKey'],
  ports: [...MANAGING, 'idempotency', 'expiry'],
  throttle: 'write',
  schedules: 'create',
  settings: MANAGEMENT_SETTINGS,
});
