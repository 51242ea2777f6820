/** The fixture of create-webhook-endpoint (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: (made) => ({ team_id: made.teamId, url: 'http://127.0.0.1:9/fixture' }),
  status: 201,
  makes: { what: 'endpoint', from: (data) => ({ id: data.id as string }) },
});
