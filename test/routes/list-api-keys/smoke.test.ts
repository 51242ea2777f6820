/** list-api-keys: its fixture's valid request (lambda/routes/list-api-keys/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('list-api-keys');
