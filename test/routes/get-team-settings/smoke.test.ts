/** get-team-settings: its fixture's valid request (lambda/routes/get-team-settings/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('get-team-settings');
