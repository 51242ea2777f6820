/** github-secret-scanning: its fixture's valid request (lambda/routes/github-secret-scanning/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('github-secret-scanning');
