/** redeliver-webhook: its fixture's valid request (lambda/routes/redeliver-webhook/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('redeliver-webhook');
