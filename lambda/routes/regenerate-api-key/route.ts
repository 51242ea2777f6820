/** The declaration of POST /functions/v1/regenerate-api-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED, TARGET_KEY } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'regenerate-api-key',
  method: 'POST',
  caller: 'manager',
  input: 'body',
  schedules: 'create',
  summary: 'issues a new value and schedules the old one to expire',
  operations: [...AUTHENTICATED, 'readIdempotencyRecord', ...TARGET_KEY, 'rotateValue'],
  ports: [...MANAGING, 'idempotency', 'scheduler', 'expiry'],
  throttle: 'write',
  settings: [...MANAGEMENT_SETTINGS, 'AUTHORIZER_CACHE_TTL_SECONDS'],
});
