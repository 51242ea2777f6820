/** The fixture of delete-api-key (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({ key_id: made.key.id, confirm_deletion: true }),
  status: 200,
});
