/** The fixture of get-api-key-usage (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({ key_id: made.key.id }),
  status: 200,
});
