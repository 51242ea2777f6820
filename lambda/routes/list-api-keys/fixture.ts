/** The fixture of list-api-keys (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: (made) => ({ team_id: made.teamId, limit: '10' }),
  status: 200,
  partitions: (made) => ({ 'by team': { team_id: made.teamId } }),
});
