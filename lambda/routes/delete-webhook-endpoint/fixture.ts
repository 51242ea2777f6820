/** The fixture of delete-webhook-endpoint (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['endpoint'],
  request: (made) => ({ endpoint_id: made.endpoint.id }),
  status: 200,
});
