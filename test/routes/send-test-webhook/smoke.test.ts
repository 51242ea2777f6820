/** send-test-webhook: its fixture's valid request (lambda/routes/send-test-webhook/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('send-test-webhook');
