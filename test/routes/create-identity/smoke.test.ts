/** create-identity: its fixture's valid request (lambda/routes/create-identity/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('create-identity');
