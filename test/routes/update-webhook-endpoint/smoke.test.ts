/** update-webhook-endpoint: its fixture's valid request (lambda/routes/update-webhook-endpoint/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('update-webhook-endpoint');
