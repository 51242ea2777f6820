/** update-api-key: its fixture's valid request (lambda/routes/update-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('update-api-key');
