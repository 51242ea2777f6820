/** list-webhook-deliveries: its fixture's valid request (lambda/routes/list-webhook-deliveries/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('list-webhook-deliveries');
