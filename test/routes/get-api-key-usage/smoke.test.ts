/** get-api-key-usage: its fixture's valid request (lambda/routes/get-api-key-usage/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-api-key-usage');
