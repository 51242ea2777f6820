/** The declaration of GET /functions/v1/get-audit-checkpoint: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'get-audit-checkpoint',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: "the team's latest signed audit checkpoint",
  operations: [...AUTHENTICATED, 'readAuditCheckpoint'],
  ports: [...MANAGING, 'chains'],
  settings: MANAGEMENT_SETTINGS,
});
