/** The declaration of GET /functions/v1/audit-public-key: dependency-free, read by the CDK app at synth. */
import { defineRoute } from '../../contract/routes';

export const route = defineRoute({
  name: 'audit-public-key',
  method: 'GET',
  caller: 'public',
  input: 'query',
  summary: 'every key that ever signed an audit checkpoint (no authentication: a checkpoint is checked with them)',
  operations: ['listSigningKeys'],
  ports: ['chains'],
  settings: ['KEY_TABLE_NAME'],
  openBecause:
    'audit-public-key answers public keys only (every key that ever signed an audit checkpoint): anyone checking a checkpoint needs them, and they reveal nothing secret; the stage’s throttle ceiling applies.',
});
