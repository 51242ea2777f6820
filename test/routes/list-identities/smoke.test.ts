/** list-identities: its fixture's valid request (lambda/routes/list-identities/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('list-identities');
