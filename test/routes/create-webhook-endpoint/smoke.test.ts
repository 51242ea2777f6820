/** create-webhook-endpoint: its fixture's valid request (lambda/routes/create-webhook-endpoint/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('create-webhook-endpoint');
