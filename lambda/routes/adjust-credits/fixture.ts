/** The fixture of adjust-credits (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  // The fixture's identity has credits (the identity creation's fixture gives it some).
  needs: ['identity'],
  request: (made) => ({ identity_id: made.identity.id, add: 10, reason: 'the fixture' }),
  status: 200,
});
