/** update-team-settings: its fixture's valid request (lambda/routes/update-team-settings/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('update-team-settings');
