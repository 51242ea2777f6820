/** The declaration of POST /functions/v1/report-leaked-key: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'report-leaked-key',
  method: 'POST',
  caller: 'manager',
  input: 'body',
  summary: 'reports a value the team found leaked: the key is disabled (or its old value ended) by its on_leak',
  operations: [...AUTHENTICATED, 'readIdempotencyRecord', 'readKey', 'readUsage', 'recordLeak'],
  ports: [...MANAGING, 'idempotency'],
  throttle: 'write',
  settings: MANAGEMENT_SETTINGS,
});
