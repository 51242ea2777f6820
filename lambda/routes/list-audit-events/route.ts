/** The declaration of GET /functions/v1/list-audit-events: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { LIST_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'list-audit-events',
  method: 'GET',
  caller: 'manager',
  input: 'query',
  summary: 'the audit trail, newest first',
  operations: [...AUTHENTICATED, 'readTargetKey', 'readKey', 'readAuditTrail'],
  ports: [...MANAGING, 'audit'],
  settings: LIST_SETTINGS,
});
