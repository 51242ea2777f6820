/** verify-api-key: its fixture's valid request (lambda/routes/verify-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('verify-api-key');
