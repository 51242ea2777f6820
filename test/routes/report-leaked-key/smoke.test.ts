/** report-leaked-key: its fixture's valid request (lambda/routes/report-leaked-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('report-leaked-key');
