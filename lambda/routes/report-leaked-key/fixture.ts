/** The fixture of report-leaked-key (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({ key: made.key.key }),
  status: 200,
});
