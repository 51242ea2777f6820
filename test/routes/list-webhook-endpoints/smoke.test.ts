/** list-webhook-endpoints: its fixture's valid request (lambda/routes/list-webhook-endpoints/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('list-webhook-endpoints');
