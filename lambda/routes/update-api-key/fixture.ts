/** The fixture of update-api-key (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({ key_id: made.key.id, description: 'changed by the fixture' }),
  status: 200,
});
