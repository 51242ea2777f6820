/** get-api-key: its fixture's valid request (lambda/routes/get-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-api-key');
