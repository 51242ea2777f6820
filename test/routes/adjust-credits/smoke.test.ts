/** adjust-credits: its fixture's valid request (lambda/routes/adjust-credits/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('adjust-credits');
