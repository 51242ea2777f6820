/** get-audit-checkpoint: its fixture's valid request (lambda/routes/get-audit-checkpoint/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-audit-checkpoint');
