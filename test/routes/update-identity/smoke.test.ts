/** update-identity: its fixture's valid request (lambda/routes/update-identity/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('update-identity');
