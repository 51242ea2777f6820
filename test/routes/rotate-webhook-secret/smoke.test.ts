/** rotate-webhook-secret: its fixture's valid request (lambda/routes/rotate-webhook-secret/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('rotate-webhook-secret');
