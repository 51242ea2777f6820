/** The fixture of generate-api-key (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: (made) => ({ team_id: made.teamId, name: 'Fixture key', type: 'sk', environment: 'live' }),
  status: 201,
  makes: { what: 'key', from: (data) => ({ id: data.id as string, key: data.key as string }) },
});
