/** audit-public-key: its fixture's valid request (lambda/routes/audit-public-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('audit-public-key');
