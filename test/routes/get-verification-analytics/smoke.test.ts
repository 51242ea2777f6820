/** get-verification-analytics: its fixture's valid request (lambda/routes/get-verification-analytics/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-verification-analytics');
