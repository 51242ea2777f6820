/** delete-identity: its fixture's valid request (lambda/routes/delete-identity/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('delete-identity');
