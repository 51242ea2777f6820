/** list-audit-events: its fixture's valid request (lambda/routes/list-audit-events/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('list-audit-events');
