/** delete-webhook-endpoint: its fixture's valid request (lambda/routes/delete-webhook-endpoint/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('delete-webhook-endpoint');
