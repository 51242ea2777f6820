/** regenerate-api-key: its fixture's valid request (lambda/routes/regenerate-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('regenerate-api-key');
