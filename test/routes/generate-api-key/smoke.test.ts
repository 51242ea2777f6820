/** generate-api-key: its fixture's valid request (lambda/routes/generate-api-key/fixture.ts) answers as documented. */
import { smokeTest } from '../../support/route-fixtures';

smokeTest('generate-api-key');
