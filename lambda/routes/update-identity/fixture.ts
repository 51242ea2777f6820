/** The fixture of update-identity (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['identity'],
  request: (made) => ({ identity_id: made.identity.id, meta: { plan: 'changed by the fixture' } }),
  status: 200,
});
