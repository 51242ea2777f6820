/** get-identity: its fixture's valid request (lambda/routes/get-identity/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-identity');
