/** delete-api-key: its fixture's valid request (lambda/routes/delete-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('delete-api-key');
